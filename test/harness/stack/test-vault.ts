import { resolve } from 'node:path';
import { getAddress, type Address, type Hex } from 'viem';
import type { Anvil } from './anvil';
import { compiledContracts, deployerClient } from './solidity';

const source = resolve(__dirname, '../contracts/test-vault.sol');

export interface TestVault {
  address: Address;
  /** Closes it as its deployer (every call then reverts "TestVault: closed"); `tip` outbids. */
  close(options?: { maxPriorityFeePerGas?: bigint; wait?: boolean }): Promise<Hex>;
  deposited(ref: Hex): Promise<bigint>;
  recorded(): Promise<bigint>;
}

/** Deploys the contract intents call in the tests (test/harness/contracts/test-vault.sol) on `anvil`. */
export async function deployTestVault(anvil: Anvil): Promise<TestVault> {
  const { abi, bytecode } = compiledContracts(source).TestVault!;
  const client = deployerClient(anvil);
  const hash = await client.deployContract({ abi, bytecode });
  const address = getAddress((await client.waitForTransactionReceipt({ hash })).contractAddress!);
  const read = async (functionName: string, args: readonly unknown[] = []) =>
    (await client.readContract({ address, abi, functionName, args })) as bigint;
  return {
    address,
    async close({ maxPriorityFeePerGas, wait = true } = {}) {
      const sent = await client.writeContract({
        address,
        abi,
        functionName: 'close',
        ...(maxPriorityFeePerGas !== undefined && {
          maxPriorityFeePerGas,
          maxFeePerGas: maxPriorityFeePerGas * 4n + 10n ** 10n,
        }),
      });
      if (wait) await client.waitForTransactionReceipt({ hash: sent });
      return sent;
    },
    deposited: (ref) => read('deposited', [ref]),
    recorded: () => read('recorded'),
  };
}
