import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  createWalletClient,
  defineChain,
  getAddress,
  http,
  publicActions,
  type Abi,
  type Address,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Anvil } from './anvil';
import { cacheDir } from './toolchain';

const source = resolve(__dirname, '../contracts/test-tokens.sol');

export const testTokenContracts = {
  standard: 'StandardToken',
  'no-return': 'NoReturnToken',
  'false-return': 'FalseReturnToken',
  'fee-on-transfer': 'FeeOnTransferToken',
  blocklist: 'BlocklistPausableToken',
} as const;
export type TestTokenKind = keyof typeof testTokenContracts;

interface Artifact {
  abi: Abi;
  bytecode: Hex;
}

/**
 * The test tokens compiled with solc-js (the compiler as JavaScript, no download), cached on disk
 * by the source's hash: compiling takes seconds, reading the cache milliseconds.
 */
export function compiledTestTokens(): Record<string, Artifact> {
  const text = readFileSync(source, 'utf8');
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
  const cached = join(cacheDir, 'contracts', `test-tokens-${hash}.json`);
  if (existsSync(cached))
    return JSON.parse(readFileSync(cached, 'utf8')) as Record<string, Artifact>;
  // Loaded only when a compile is needed: the compiler is a large module.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const solc = require('solc') as { compile(input: string): string };
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { 'test-tokens.sol': { content: text } },
        settings: {
          optimizer: { enabled: true, runs: 200 },
          evmVersion: 'cancun',
          outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
        },
      }),
    ),
  ) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((error) => error.severity === 'error');
  if (errors.length > 0) {
    throw new Error(
      `test tokens do not compile:\n${errors.map((e) => e.formattedMessage).join('\n')}`,
    );
  }
  const artifacts = Object.fromEntries(
    Object.entries(output.contracts['test-tokens.sol']!).map(([name, contract]) => [
      name,
      { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` as Hex },
    ]),
  );
  mkdirSync(join(cacheDir, 'contracts'), { recursive: true });
  writeFileSync(cached, JSON.stringify(artifacts));
  return artifacts;
}

export interface TestToken {
  address: Address;
  kind: TestTokenKind;
  decimals: number;
  /** Calls a function of the token as its deployer, and waits for the receipt. */
  write(functionName: string, args: readonly unknown[]): Promise<void>;
  balanceOf(account: Address): Promise<bigint>;
}

/**
 * Deploys a test token on `anvil` from its last development account (never a hot wallet), the
 * receipt awaited. `feeBasisPoints` is the fee-on-transfer token's cut.
 */
export async function deployTestToken(
  anvil: Anvil,
  kind: TestTokenKind,
  options: { symbol: string; decimals: number; feeBasisPoints?: number },
): Promise<TestToken> {
  const { abi, bytecode } = compiledTestTokens()[testTokenContracts[kind]]!;
  const client = createWalletClient({
    account: privateKeyToAccount(anvil.keys.at(-1)!),
    chain: defineChain({
      id: anvil.chainId,
      name: 'anvil',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [anvil.rpcUrl] } },
    }),
    transport: http(anvil.rpcUrl),
  }).extend(publicActions);
  const args: unknown[] = [`Test ${options.symbol}`, options.symbol, options.decimals];
  if (kind === 'fee-on-transfer') args.push(BigInt(options.feeBasisPoints ?? 100));
  const hash = await client.deployContract({ abi, bytecode, args });
  const receipt = await client.waitForTransactionReceipt({ hash });
  const address = getAddress(receipt.contractAddress!);
  return {
    address,
    kind,
    decimals: options.decimals,
    async write(functionName, writeArgs) {
      const sent = await client.writeContract({
        address,
        abi,
        functionName,
        args: writeArgs,
      });
      await client.waitForTransactionReceipt({ hash: sent });
    },
    balanceOf: async (account) =>
      (await client.readContract({
        address,
        abi,
        functionName: 'balanceOf',
        args: [account],
      })) as bigint,
  };
}
