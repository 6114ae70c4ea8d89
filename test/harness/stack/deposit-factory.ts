import { getAddress, type Hex } from 'viem';
import {
  depositFactoryAbi,
  depositFactoryBytecode,
} from '../../../chain/contracts/deposit-forwarders-code';
import type { Anvil } from './anvil';
import { deployerClient } from './solidity';

/**
 * Deploys a chain's deposit factory on anvil, owned by `owner` (the chain's treasury, which
 * signs the sweeps); any account may deploy it, the owner is its constructor's argument.
 */
export async function deployDepositFactory(anvil: Anvil, owner: Hex): Promise<Hex> {
  const client = deployerClient(anvil);
  const hash = await client.deployContract({
    abi: depositFactoryAbi,
    bytecode: depositFactoryBytecode,
    args: [owner],
  });
  return getAddress((await client.waitForTransactionReceipt({ hash })).contractAddress!);
}
