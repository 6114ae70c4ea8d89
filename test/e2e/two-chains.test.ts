import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, http, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { nativeBookOf } from '../../domain/ledger-book';
import { depositAsset } from '../../service/assets';
import { balancesOf } from '../../service/balances';
import { submitIntent } from '../../service/submit-intent';
import { startAnvil, type Anvil } from '../harness/stack/anvil';
import { waitUntilSettled } from '../harness/intents';
import { waitFor } from '../harness/stack/wait-for';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';
import type { Database } from '../../store/database';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { useWorld } from '../harness/test-world';

const world = useWorld({ tenants: { acme: '100' } });
let connection: Connection;
let secondChain: Anvil;
beforeAll(async () => {
  connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
  secondChain = await startAnvil({ chainId: 31_338 });
});
world.onStop(async () => {
  await secondChain?.stop();
  await connection?.close();
});

/** What each of the intent's confirmation looks answered, from its workflow's history. */
async function confirmLooks(client: Client, intentId: string) {
  const history = await client.workflow.getHandle(paymentIntentWorkflowId(intentId)).fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const payload = event.activityTaskCompletedEventAttributes?.result?.payloads?.[0];
    const result = payload && defaultPayloadConverter.fromPayload<{ state?: string }>(payload);
    return result && typeof result === 'object' && 'confirmations' in result
      ? [result as { state: string; confirmations: number }]
      : [];
  });
}

const statusOf = async (database: Database, intentId: string) =>
  (
    await database.kysely
      .selectFrom('intents')
      .select('status')
      .where('id', '=', intentId)
      .executeTakeFirstOrThrow()
  ).status;

describe('one worker process, two EVM chains at once', () => {
  it('pays on each chain from the same wallets and that chain’s books only; a payout a chain’s book cannot cover is refused whatever the other holds', async () => {
    const { database } = world;
    const taskQueue = `chains-${randomUUID()}`;
    await world.spawnWorkers(1, {
      TASK_QUEUE: taskQueue,
      EXTRA_CHAINS: `${secondChain.chainId}=${secondChain.rpcUrl}`,
      GAS_PAID_BY: 'tenant',
    });
    const client = new Client({ connection });
    const deps = { database, client, taskQueue };
    const payout = (chainId: number, i: number, ether = '0.01') => ({
      tenantId: 'acme',
      chainId,
      from: world.wallets[i % world.wallets.length]!,
      to: privateKeyToAccount(generatePrivateKey()).address,
      amount: parseEther(ether).toString(),
    });
    const intentCount = async () =>
      (await database.kysely.selectFrom('intents').select('id').execute()).length;

    // acme's 100 ETH are on the first chain: the second one's book does not exist yet.
    await expect(submitIntent(deps, payout(secondChain.chainId, 0))).rejects.toMatchObject({
      name: 'NoAccount',
      details: { tenantId: 'acme', asset: 'native', chainId: secondChain.chainId },
    });
    // A deposit on a chain the relayer does not serve books nothing.
    await expect(
      depositAsset(
        database,
        { tenantId: 'acme', chainId: 5, asset: 'native', amount: parseEther('1') },
        new Date(),
      ),
    ).rejects.toMatchObject({ name: 'UnknownChain', message: expect.stringMatching(/31338/) });
    await depositAsset(
      database,
      { tenantId: 'acme', chainId: secondChain.chainId, asset: 'native', amount: parseEther('1') },
      new Date(),
    );
    // 99+ ETH on the first chain do not pay 2 ETH on the second, where acme has 1.
    await expect(submitIntent(deps, payout(secondChain.chainId, 0, '2'))).rejects.toMatchObject({
      name: 'InsufficientBalance',
      details: { available: parseEther('1').toString() },
    });
    expect(await intentCount()).toBe(0);

    const requests = Array.from({ length: 12 }, (_, i) =>
      payout(i % 2 === 0 ? world.anvil.chainId : secondChain.chainId, i),
    );
    await Promise.all(requests.map((request) => submitIntent(deps, request)));
    await waitUntilSettled(world, requests.length, 60_000);

    const rows = await database.kysely.selectFrom('intents').selectAll().execute();
    expect(rows.map((row) => row.status)).toEqual(Array(12).fill('confirmed'));
    const reader = {
      [world.anvil.chainId]: world.testClient,
      [secondChain.chainId]: createPublicClient({ transport: http(secondChain.rpcUrl) }),
    };
    for (const request of requests) {
      const other =
        request.chainId === world.anvil.chainId ? secondChain.chainId : world.anvil.chainId;
      expect(await reader[request.chainId]!.getBalance({ address: request.to })).toBe(
        BigInt(request.amount),
      );
      expect(await reader[other]!.getBalance({ address: request.to })).toBe(0n);
    }

    // Each chain's book paid its own intents and its own gas: what was deposited there is its
    // available + held + paid out + gas, to the wei.
    const ledger = await expectBooksBalanced(database);
    const deposited = {
      [world.anvil.chainId]: parseEther('100'),
      [secondChain.chainId]: parseEther('1'),
    };
    const balances = await balancesOf(database, 'acme');
    expect(balances.map((b) => [b.asset, b.chainId])).toEqual([
      ['native', world.anvil.chainId],
      ['native', secondChain.chainId],
    ]);
    for (const balance of balances) {
      const book = nativeBookOf(balance.chainId);
      const paid = rows
        .filter((row) => row.chain_id === balance.chainId)
        .reduce((sum, row) => sum + BigInt(row.amount), 0n);
      const gas = ledger.gasCharged[`acme/${book}`] ?? 0n;
      const onChain = rows
        .filter((row) => row.chain_id === balance.chainId)
        .reduce((sum, row) => sum + BigInt(row.fee_paid ?? 0), 0n);
      expect({ book, gas }).toEqual({ book, gas: onChain });
      expect(gas > 0n).toBe(true);
      expect({ book, total: balance.available + balance.held + paid + gas }).toEqual({
        book,
        total: deposited[balance.chainId],
      });
    }
  });

  it('serves its chains from a chains file: a chain without EIP-1559 is paid in type-0 transactions at its own depth', async () => {
    const { database } = world;
    const legacyChain = await startAnvil({ chainId: 31_339, hardfork: 'berlin' });
    try {
      const dir = mkdtempSync(join(tmpdir(), 'chains-'));
      const chainsFile = join(dir, 'chains.yaml');
      writeFileSync(
        chainsFile,
        [
          'chains:',
          `  - { chainId: ${world.anvil.chainId}, name: home, rpc: [${world.env().RPC_URLS}] }`,
          `  - chainId: ${legacyChain.chainId}`,
          '    name: pre-london',
          `    rpc: [${legacyChain.rpcUrl}]`,
          '    gasPricing: legacy',
          '    confirmations: 2',
          '',
        ].join('\n'),
      );
      const taskQueue = `chains-file-${randomUUID()}`;
      await world.spawnWorkers(1, {
        TASK_QUEUE: taskQueue,
        CHAIN_ID: '',
        RPC_URLS: '',
        CHAINS_FILE: chainsFile,
        GAS_PAID_BY: 'tenant',
      });
      const client = new Client({ connection });
      const deps = { database, client, taskQueue };
      await depositAsset(
        database,
        {
          tenantId: 'acme',
          chainId: legacyChain.chainId,
          asset: 'native',
          amount: parseEther('1'),
        },
        new Date(),
      );
      const before = (await database.kysely.selectFrom('intents').select('id').execute()).length;
      const requests = Array.from({ length: 4 }, (_, i) => ({
        tenantId: 'acme',
        chainId: legacyChain.chainId,
        from: world.wallets[i % world.wallets.length]!,
        to: privateKeyToAccount(generatePrivateKey()).address,
        amount: parseEther('0.01').toString(),
      }));
      const ids = await Promise.all(
        requests.map(async (request) => (await submitIntent(deps, request)).intent.id),
      );
      // Two confirmations on automine: the next intents' blocks bury the first ones; the one in
      // the newest block stays confirming after a look at its one confirmation, until a block more.
      const reader = createPublicClient({ transport: http(legacyChain.rpcUrl) });
      const blockOf = new Map<string, bigint>();
      await waitFor(
        async () => {
          for (const id of ids) {
            const { tx_hash: hash } = await database.kysely
              .selectFrom('intents')
              .select('tx_hash')
              .where('id', '=', id)
              .executeTakeFirstOrThrow();
            const receipt = hash
              ? await reader
                  .getTransactionReceipt({ hash: hash as `0x${string}` })
                  .catch(() => undefined)
              : undefined;
            if (receipt) blockOf.set(id, receipt.blockNumber);
          }
          return blockOf.size === ids.length;
        },
        'the four transfers mined',
        60_000,
      );
      const newest = ids.reduce((a, b) => (blockOf.get(a)! > blockOf.get(b)! ? a : b));
      await waitFor(
        async () =>
          (await confirmLooks(client, newest)).some(
            (look) => look.state === 'pending' && look.confirmations === 1,
          ),
        'a look at the newest transfer finding it one block deep',
        60_000,
      );
      expect(await statusOf(database, newest)).toBe('confirming');
      await reader.request({ method: 'evm_mine' } as never);
      await waitUntilSettled(world, before + requests.length, 60_000);
      const rows = await database.kysely
        .selectFrom('intents')
        .selectAll()
        .where('id', 'in', ids)
        .execute();
      expect(rows.map((row) => row.status)).toEqual(Array(4).fill('confirmed'));
      for (const row of rows) {
        const tx = await reader.getTransaction({ hash: row.tx_hash as `0x${string}` });
        expect({ type: tx.type, gasPrice: tx.gasPrice! > 0n }).toEqual({
          type: 'legacy',
          gasPrice: true,
        });
        expect(await reader.getBalance({ address: row.to_address as `0x${string}` })).toBe(
          parseEther('0.01'),
        );
      }
      const ledger = await expectBooksBalanced(database);
      const book = nativeBookOf(legacyChain.chainId);
      const gas = ledger.gasCharged[`acme/${book}`] ?? 0n;
      expect(gas).toBe(rows.reduce((sum, row) => sum + BigInt(row.fee_paid ?? 0), 0n));
      expect(ledger.balances[`acme/available/${book}`]).toBe(
        parseEther('1') - parseEther('0.04') - gas,
      );
      rmSync(dir, { recursive: true, force: true });
    } finally {
      await legacyChain.stop();
    }
  });
});
