import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { keccak256 } from 'viem';
import { compiledContracts, type CompileSettings } from '../../test/harness/stack/solidity';

/**
 * Every deposit address follows from the factory's bytes: they are compiled once, here, and
 * committed (chain/contracts/deposit-forwarders-code.ts); test/unit/deposit-addresses.test.ts
 * fails when a compile of the source no longer gives them. Run: `npm run contracts:deposits`.
 */
export const depositSource = resolve(__dirname, '../../chain/contracts/deposit-forwarders.sol');
/** Paris (no PUSH0): the same bytes run on chains that have not taken Shanghai. */
export const depositCompileSettings: CompileSettings = {
  evmVersion: 'paris',
  appendMetadata: false,
};

export function compiledDepositContracts() {
  const contracts = compiledContracts(depositSource, depositCompileSettings);
  return { factory: contracts.DepositFactory!, forwarder: contracts.DepositForwarder! };
}

/** The code in lines of 96 hex digits, each a quoted string. */
const linesOf = (code: string) =>
  (code.match(/.{1,96}/g) ?? []).map((line) => `'${line}'`).join(',\n');

function main(): void {
  const { factory, forwarder } = compiledDepositContracts();
  const target = resolve(__dirname, '../../chain/contracts/deposit-forwarders-code.ts');
  const json = (value: unknown) => JSON.stringify(value, null, 2);
  writeFileSync(
    target,
    [
      '// Written by `npm run contracts:deposits` from deposit-forwarders.sol (solc 0.8.28, 200 runs,',
      '// Paris, no metadata): never by hand. Every deposit address follows from these bytes.',
      "import type { Hex } from 'viem';",
      '',
      `export const depositFactoryAbi = ${json(factory.abi)} as const;`,
      '',
      `export const depositForwarderAbi = ${json(forwarder.abi)} as const;`,
      '',
      `/** keccak256: ${keccak256(factory.bytecode)} */`,
      `export const depositFactoryBytecode = [${linesOf(factory.bytecode)}].join('') as Hex;`,
      '',
    ].join('\n'),
  );
  console.log(`written: ${target}`);
}

if (require.main === module) main();
