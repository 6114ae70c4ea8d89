import { resolve } from 'node:path';
import { getAddress, type Address } from 'viem';
import type { Anvil } from './anvil';
import { compiledContracts, deployerClient, type ContractArtifact } from './solidity';

const source = resolve(__dirname, '../contracts/test-tokens.sol');

export const testTokenContracts = {
  standard: 'StandardToken',
  'no-return': 'NoReturnToken',
  'false-return': 'FalseReturnToken',
  'fee-on-transfer': 'FeeOnTransferToken',
  blocklist: 'BlocklistPausableToken',
} as const;
export type TestTokenKind = keyof typeof testTokenContracts;

/** The test tokens compiled (solidity.ts), cached by their source's hash. */
export const compiledTestTokens = (): Record<string, ContractArtifact> => compiledContracts(source);

export interface TestToken {
  address: Address;
  kind: TestTokenKind;
  symbol: string;
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
  const client = deployerClient(anvil);
  const args: unknown[] = [`Test ${options.symbol}`, options.symbol, options.decimals];
  if (kind === 'fee-on-transfer') args.push(BigInt(options.feeBasisPoints ?? 100));
  const hash = await client.deployContract({ abi, bytecode, args });
  const receipt = await client.waitForTransactionReceipt({ hash });
  const address = getAddress(receipt.contractAddress!);
  return {
    address,
    kind,
    symbol: options.symbol,
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
