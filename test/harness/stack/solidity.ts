import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createWalletClient, defineChain, http, publicActions, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Anvil } from './anvil';
import { cacheDir } from './toolchain';

export interface ContractArtifact {
  abi: Abi;
  bytecode: Hex;
}

/** How a file is compiled besides the optimizer (200 runs): the test contracts' defaults. */
export interface CompileSettings {
  evmVersion: 'paris' | 'cancun';
  /** The metadata's hash at the code's end: off, comments cannot change the bytes. */
  appendMetadata: boolean;
}

const testContractSettings: CompileSettings = { evmVersion: 'cancun', appendMetadata: true };

/**
 * The contracts of a Solidity file compiled with solc-js (the compiler as JavaScript, no
 * download), cached on disk by the source's and the settings' hash: compiling takes seconds,
 * reading the cache milliseconds.
 */
export function compiledContracts(
  source: string,
  compile: CompileSettings = testContractSettings,
): Record<string, ContractArtifact> {
  const text = readFileSync(source, 'utf8');
  const file = basename(source);
  const given = compile === testContractSettings ? '' : JSON.stringify(compile);
  const hash = createHash('sha256').update(text).update(given).digest('hex').slice(0, 16);
  const cached = join(cacheDir, 'contracts', `${file.replace(/\.sol$/, '')}-${hash}.json`);
  if (existsSync(cached))
    return JSON.parse(readFileSync(cached, 'utf8')) as Record<string, ContractArtifact>;
  // Loaded only when a compile is needed: the compiler is a large module.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const solc = require('solc') as { compile(input: string): string };
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { [file]: { content: text } },
        settings: {
          optimizer: { enabled: true, runs: 200 },
          evmVersion: compile.evmVersion,
          ...(!compile.appendMetadata && { metadata: { appendCBOR: false } }),
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
      `${file} does not compile:\n${errors.map((e) => e.formattedMessage).join('\n')}`,
    );
  }
  const artifacts = Object.fromEntries(
    Object.entries(output.contracts[file]!).map(([name, contract]) => [
      name,
      { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` as Hex },
    ]),
  );
  mkdirSync(join(cacheDir, 'contracts'), { recursive: true });
  writeFileSync(cached, JSON.stringify(artifacts));
  return artifacts;
}

/**
 * How often a local client polls (receipts, blocks): viem's default of 4 s suits a public RPC;
 * anvil answers at once, and a deploy awaited on a chain with 1 s blocks waited 4 s for each.
 */
export const localPollingIntervalMs = 100;

/** A client of anvil signing with one of its keys. */
export const anvilWalletClient = (anvil: Anvil, key: Hex) =>
  createWalletClient({
    account: privateKeyToAccount(key),
    chain: defineChain({
      id: anvil.chainId,
      name: 'anvil',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [anvil.rpcUrl] } },
    }),
    transport: http(anvil.rpcUrl),
    pollingInterval: localPollingIntervalMs,
  }).extend(publicActions);

/** A client that deploys and calls test contracts from anvil's last account (never a hot wallet). */
export const deployerClient = (anvil: Anvil) => anvilWalletClient(anvil, anvil.keys.at(-1)!);
