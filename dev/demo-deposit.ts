import { formatEther, type Hex } from 'viem';
import { createApiClient } from '../cli/api-client';
import { table } from '../cli/table';
import { createApiKey } from '../service/api-keys';
import type { RelayerProcess } from '../workers/relayer-process';
import type { Anvil } from './stack/anvil';
import { deployerClient } from './stack/solidity';
import { waitFor } from './stack/wait-for';

/**
 * The demo's tenant funds its book on chain: it asks for its deposit address, a customer (anvil's
 * deployer account) sends the coin there, and the relayer credits it once its block is final.
 */
export async function fundByDeposit(
  relayer: RelayerProcess,
  chain: Anvil,
  tenant: { id: string; apiKey: string },
  wei: bigint,
  step: (message: string) => void,
): Promise<Hex> {
  const api = createApiClient(relayer.apiUrl!, tenant.apiKey);
  const { address } = await api.depositAddress({ chainId: chain.chainId });
  const customer = deployerClient(chain);
  const txHash = await customer.sendTransaction({ to: address as Hex, value: wei });
  step(
    `${tenant.id} funds its book on chain ${chain.chainId} from the chain itself: ${formatEther(wei)} ETH sent to its deposit address ${address} (${txHash})`,
  );
  const since = Date.now();
  await waitFor(
    async () => (await api.deposits({ status: 'credited' })).some((d) => d.txHash === txHash),
    'the deposit credited',
  );
  step(
    `  credited to ${tenant.id} once final, after ${((Date.now() - since) / 1000).toFixed(1)} s`,
  );
  return txHash;
}

/**
 * The deposit's trail after the payments: its row, the house's sweep of the address into the
 * treasury (waited for up to a minute), and the chain's reconciliation.
 */
export async function printDepositTrail(
  relayer: RelayerProcess,
  chainId: number,
  tenant: { id: string; apiKey: string },
  txHash: Hex,
): Promise<void> {
  const db = relayer.database.kysely;
  const deposit = () =>
    db
      .selectFrom('deposits')
      .leftJoin('deposit_sweeps', 'deposit_sweeps.intent_id', 'deposits.sweep_intent_id')
      .leftJoin('intents', 'intents.id', 'deposits.sweep_intent_id')
      .select([
        'deposits.id',
        'deposits.address',
        'deposits.amount',
        'deposits.status',
        'deposits.block_number',
        'intents.id as sweepId',
        'intents.status as sweepStatus',
        'intents.tx_hash as sweepTx',
        'deposit_sweeps.gas_paid as sweepGas',
      ])
      .where('deposits.tx_hash', '=', txHash)
      .executeTakeFirstOrThrow();
  await waitFor(
    async () => (await deposit()).sweepStatus === 'confirmed',
    'the deposit swept',
  ).catch(() => undefined);
  const row = await deposit();
  const { apiKey } = await createApiKey(
    relayer.database,
    { role: 'operator', label: 'demo reconciliation' },
    new Date(),
  );
  const reconciliation = await createApiClient(relayer.apiUrl!, apiKey).reconcileDeposits(chainId);
  const trail = table(['deposit trail', ''], ['left', 'left']);
  trail.push(
    ['tenant', tenant.id],
    ['sent to', `${row.address} (chain ${chainId})`],
    ['transaction', `${txHash} in block ${row.block_number}`],
    ['deposit', `${row.id}: ${formatEther(BigInt(row.amount))} ETH, ${row.status}`],
    [
      'swept to the treasury',
      row.sweepId
        ? `${row.sweepId} (${row.sweepStatus}) ${row.sweepTx ?? ''}, gas ${row.sweepGas ? formatEther(BigInt(row.sweepGas)) : '…'} ETH (the house's)`
        : 'not yet',
    ],
    [
      'reconciled',
      `${reconciliation.differences} difference(s) at block ${reconciliation.blockNumber}`,
    ],
  );
  console.log(trail.toString());
}
