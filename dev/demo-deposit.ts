import { erc20Abi, formatEther, formatUnits, type Hex } from 'viem';
import { createApiClient } from '../cli/api-client';
import { table } from '../cli/table';
import { createApiKey } from '../service/api-keys';
import type { RelayerProcess } from '../workers/relayer-process';
import type { Anvil } from '../test/harness/stack/anvil';
import { deployerClient } from '../test/harness/stack/solidity';
import type { TestToken } from '../test/harness/stack/test-tokens';
import { waitFor } from '../test/harness/stack/wait-for';

/** What the demo's customer sends a tenant's deposit address: the coin and a stablecoin. */
export interface DemoDeposit {
  wei: bigint;
  token: TestToken;
  /** Base units of `token`. */
  tokenAmount: bigint;
}

/**
 * The demo's tenant funds its books on chain: an operator registers the chain's stablecoin, the
 * tenant asks for its deposit address, a customer (anvil's deployer account) sends the coin and
 * the stablecoin there, and the relayer credits each once its block is final.
 */
export async function fundByDeposit(
  relayer: RelayerProcess,
  chain: Anvil,
  tenant: { id: string; apiKey: string },
  sent: DemoDeposit,
  step: (message: string) => void,
): Promise<Hex[]> {
  const { apiKey: operatorKey } = await createApiKey(
    relayer.database,
    { role: 'operator', label: 'demo token registration' },
    new Date(),
  );
  const token = await createApiClient(relayer.apiUrl!, operatorKey).registerToken({
    chainId: chain.chainId,
    address: sent.token.address,
  });
  const api = createApiClient(relayer.apiUrl!, tenant.apiKey);
  const { address } = await api.depositAddress({ chainId: chain.chainId });
  const customer = deployerClient(chain);
  const coinTx = await customer.sendTransaction({ to: address as Hex, value: sent.wei });
  const tokenTx = await customer.writeContract({
    address: sent.token.address,
    abi: erc20Abi,
    functionName: 'transfer',
    args: [address as Hex, sent.tokenAmount],
  });
  const tokenAmount = `${formatUnits(sent.tokenAmount, token.decimals)} ${token.alias}`;
  step(
    `${tenant.id} funds its books on chain ${chain.chainId} from the chain itself: ${formatEther(sent.wei)} ETH and ${tokenAmount} (${token.address}, registered by an operator) sent to its deposit address ${address}`,
  );
  const since = Date.now();
  await waitFor(async () => {
    const credited = await api.deposits({ status: 'credited' });
    return [coinTx, tokenTx].every((txHash) => credited.some((d) => d.txHash === txHash));
  }, 'the deposits credited');
  step(
    `  both credited to ${tenant.id} once final, after ${((Date.now() - since) / 1000).toFixed(1)} s`,
  );
  return [coinTx, tokenTx];
}

/**
 * The deposits' trail after the payments: their rows, the house's sweeps of the address into the
 * treasury (waited for up to a minute), and the chain's reconciliation.
 */
export async function printDepositTrail(
  relayer: RelayerProcess,
  chainId: number,
  tenant: { id: string; apiKey: string },
  sent: DemoDeposit,
  txHashes: readonly Hex[],
): Promise<void> {
  const db = relayer.database.kysely;
  const deposits = () =>
    db
      .selectFrom('deposits')
      .leftJoin('deposit_sweeps', 'deposit_sweeps.intent_id', 'deposits.sweep_intent_id')
      .leftJoin('intents', 'intents.id', 'deposits.sweep_intent_id')
      .select([
        'deposits.id',
        'deposits.tx_hash as txHash',
        'deposits.address',
        'deposits.asset',
        'deposits.amount',
        'deposits.status',
        'deposits.block_number',
        'intents.id as sweepId',
        'intents.status as sweepStatus',
        'intents.tx_hash as sweepTx',
        'deposit_sweeps.gas_paid as sweepGas',
      ])
      .where('deposits.tx_hash', 'in', txHashes)
      .orderBy('deposits.asset')
      .execute();
  await waitFor(
    async () => (await deposits()).every((row) => row.sweepStatus === 'confirmed'),
    'the deposits swept',
  ).catch(() => undefined);
  const rows = await deposits();
  const { apiKey } = await createApiKey(
    relayer.database,
    { role: 'operator', label: 'demo reconciliation' },
    new Date(),
  );
  const reconciliation = await createApiClient(relayer.apiUrl!, apiKey).reconcileDeposits(chainId);
  const trail = table(['deposit trail', ''], ['left', 'left']);
  trail.push(['tenant', tenant.id], ['sent to', `${rows[0]?.address ?? '…'} (chain ${chainId})`]);
  for (const row of rows) {
    const amount =
      row.asset === 'native'
        ? `${formatEther(BigInt(row.amount))} ETH`
        : `${formatUnits(BigInt(row.amount), sent.token.decimals)} ${sent.token.symbol}`;
    trail.push(
      [
        'deposit',
        `${row.id}: ${amount}, ${row.status} (${row.txHash} in block ${row.block_number})`,
      ],
      [
        '  swept to the treasury',
        row.sweepId
          ? `${row.sweepId} (${row.sweepStatus}) ${row.sweepTx ?? ''}, gas ${row.sweepGas ? formatEther(BigInt(row.sweepGas)) : '…'} ETH (the house's)`
          : 'not yet',
      ],
    );
  }
  trail.push([
    'reconciled',
    `${reconciliation.differences} difference(s) at block ${reconciliation.blockNumber}`,
  ]);
  console.log(trail.toString());
}
