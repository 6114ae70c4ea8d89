import { Client, Connection } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { formatEther, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { sweepTopUps } from '../../activities/sweep-top-ups';
import { systemClock } from '../../activities/dependencies';
import { createChainRegistry, createEvmChain } from '../../chain/evm-chain';
import { startIntentWorkflow } from '../../client/intent-workflows';
import { topUpSweepScheduleId } from '../../client/sweep-schedules';
import { operatorOwner } from '../../domain/custody';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';
import { waitFor } from '../../dev/stack/wait-for';
import { balancesOf } from '../../service/balances';
import { submitIntent } from '../../service/submit-intent';
import { walletStandings } from '../../service/wallet-standing';
import { registerEndpoint } from '../../service/webhooks';
import { evmChainSettings } from '../../workers/chain-settings';
import { loadConfig } from '../../workers/config/load';
import { secretBox } from '../../webhooks/secret-box';
import { expectInvariants } from '../support/invariants';
import { useTestWorld } from '../support/test-world';

jest.setTimeout(120_000);

const suite = useTestWorld({ wallets: 2, tenants: { acme: '100' } });
let connection: Connection;
beforeAll(async () => {
  connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
});
afterAll(async () => {
  await connection?.close();
});

describe('treasury top-ups', () => {
  it('a hot wallet drained below its mark gets one top-up however many sweeps race, confirmed from the treasury, the house paying its gas; the wallet pays again', async () => {
    const world = suite.world();
    const { database, anvil } = world;
    const taskQueue = `top-ups-${randomUUID()}`;
    const treasuryKey = anvil.keys[world.wallets.length]!;
    const treasury = privateKeyToAccount(treasuryKey).address;
    const [drained, full] = world.wallets as [`0x${string}`, `0x${string}`];
    const settings = {
      TASK_QUEUE: taskQueue,
      HOT_WALLET_KEYS: [...world.walletKeys, treasuryKey].join(','),
      TREASURY_WALLET: treasury,
      LOW_BALANCE_ETH: '0.5',
      TOP_UP_TARGET_ETH: '2',
      // Above the dev account's 10 000 ETH: the treasury is low from the start.
      TREASURY_LOW_BALANCE_ETH: '20000',
      TOP_UP_SWEEP_MS: '1000',
    };
    await world.testClient.setBalance({ address: drained, value: parseEther('0.05') });
    // The operators' endpoint is told of the wallets (its deliveries fail: the outbox is checked).
    const operator = { role: 'operator', keyId: 'test', label: 'test' } as const;
    await expect(
      registerEndpoint(
        { database, webhooks: webhookSettings() },
        { role: 'tenant', tenantId: 'acme', keyId: 'test', label: 'test' },
        { url: 'http://127.0.0.1:9/hooks', eventTypes: ['wallet.topped_up'] },
      ),
    ).rejects.toMatchObject({ message: expect.stringMatching(/operators' endpoints only/) });
    const endpoint = await registerEndpoint({ database, webhooks: webhookSettings() }, operator, {
      url: 'http://127.0.0.1:9/hooks',
    });
    expect(endpoint.tenantId).toBe(operatorOwner);

    const client = new Client({ connection });
    const config = loadConfig(world.env(settings));
    const chains = createChainRegistry([createEvmChain(evmChainSettings(config))]);
    expect(chains.get(anvil.chainId).walletAddresses).not.toContain(treasury);
    const sweep = sweepTopUps({
      db: database,
      chains,
      clock: systemClock,
      workflows: {
        startIntent: async (intent) => {
          await startIntentWorkflow(client, taskQueue, intent);
        },
        startBatch: () => Promise.reject(new Error('no batches here')),
        tellWalletTurn: () => Promise.reject(new Error('no batches here')),
      },
    });
    try {
      // Four sweeps at once, as if four workers ran them: one top-up, of the drained wallet only.
      const sweeps = await Promise.all(
        Array.from({ length: 4 }, () => sweep({ chainId: anvil.chainId })),
      );
      const started = sweeps.flatMap((result) => result.started);
      expect(started).toHaveLength(1);
      const topUpId = started[0]!;
      const topUp = await database.kysely
        .selectFrom('intents')
        .selectAll()
        .where('id', '=', topUpId)
        .executeTakeFirstOrThrow();
      expect(topUp).toMatchObject({
        tenant_id: operatorOwner,
        from_address: treasury,
        to_address: drained,
        amount: parseEther('1.95').toString(),
      });
      // Operators see it under way in the wallets list, the treasury beside the hot wallets.
      const standing = await walletStandings({
        database,
        chains,
        lowBalanceWei: parseEther('0.5'),
      });
      expect(standing.map((w) => [w.address, w.role, w.low, w.topUp?.id ?? null])).toEqual(
        expect.arrayContaining([
          [drained, 'hot', true, topUpId],
          [full, 'hot', false, null],
          [treasury, 'treasury', true, null],
        ]),
      );

      // A worker runs it (and its own schedule's sweeps, which find it under way).
      await suite.spawnWorkers(1, settings);
      await waitFor(
        async () =>
          (
            await database.kysely
              .selectFrom('intents')
              .select('status')
              .where('id', '=', topUpId)
              .executeTakeFirstOrThrow()
          ).status === 'confirmed',
        'the top-up to be confirmed',
        60_000,
      );
      expect(await world.testClient.getBalance({ address: drained })).toBe(parseEther('2'));
      const described = await client.workflow
        .getHandle(paymentIntentWorkflowId(topUpId))
        .describe();
      expect(described.type).toBe('walletTopUp');

      // The wallet pays again: 1 ETH it could not have paid before.
      const { intent } = await submitIntent(
        { database, client, taskQueue },
        {
          tenantId: 'acme',
          chainId: anvil.chainId,
          from: drained,
          to: privateKeyToAccount(generatePrivateKey()).address,
          amount: parseEther('1').toString(),
        },
      );
      await waitFor(
        async () =>
          (
            await database.kysely
              .selectFrom('intents')
              .select('status')
              .where('id', '=', intent.id)
              .executeTakeFirstOrThrow()
          ).status === 'confirmed',
        'the payment from the topped-up wallet',
        60_000,
      );
      // A few more sweeps: nothing is low but the treasury, so no second top-up.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const topUps = await database.kysely
        .selectFrom('intents')
        .select(['id', 'status', 'fee_paid'])
        .where('tenant_id', '=', operatorOwner)
        .execute();
      expect(topUps.map((row) => [row.id, row.status])).toEqual([[topUpId, 'confirmed']]);

      // Custody changes no tenant's books: the top-up posted its gas only, the house paying it.
      const postings = await database.kysely
        .selectFrom('postings')
        .select(['entry', 'owner', 'kind', 'amount'])
        .where('intent_id', '=', topUpId)
        .orderBy('id')
        .execute();
      const gas = BigInt(topUps[0]!.fee_paid!);
      expect(gas > 0n).toBe(true);
      expect(postings.map((p) => [p.entry, p.owner, p.kind, BigInt(p.amount)])).toEqual([
        ['gas', '@system', 'house', -gas],
        ['gas', '@system', 'fees', gas],
      ]);
      const [acme] = await balancesOf(database, 'acme');
      expect(acme!.available + acme!.held).toBe(parseEther('99'));

      // The operators were told: the dip (with its top-up), the top-up, the low treasury; once each.
      const events = await database.kysely
        .selectFrom('webhook_events')
        .select(['intent_id', 'type', 'body'])
        .where('tenant_id', '=', operatorOwner)
        .where('type', 'not like', 'intent.%')
        .execute();
      // The treasury is told at the sweep's end: the top-up may be confirmed before that.
      events.sort((a, b) => a.type.localeCompare(b.type));
      expect(events.map((e) => [e.type, e.intent_id])).toEqual([
        ['treasury.low_balance', `wallet:${anvil.chainId}:${treasury}`],
        ['wallet.low_balance', `wallet:${anvil.chainId}:${drained}`],
        ['wallet.topped_up', `wallet:${anvil.chainId}:${drained}`],
      ]);
      expect(JSON.parse(events[1]!.body)).toMatchObject({
        type: 'wallet.low_balance',
        data: { wallet: drained, balance: parseEther('0.05').toString(), topUpId },
      });
      expect(JSON.parse(events[2]!.body)).toMatchObject({
        data: { wallet: drained, amount: parseEther('1.95').toString(), topUpId },
      });
      console.log(
        `top-up ${topUpId}: ${formatEther(BigInt(topUp.amount))} ETH ${treasury} → ${drained}, gas ${gas} wei (house)`,
      );
      await expectInvariants({
        world,
        deposits: { acme: parseEther('100') },
        wallets: [...world.wallets, treasury],
      });
    } finally {
      await client.schedule
        .getHandle(topUpSweepScheduleId(taskQueue, anvil.chainId))
        .delete()
        .catch(() => undefined);
    }
  });
});

function webhookSettings() {
  return {
    box: secretBox(Buffer.alloc(32, 7)),
    policy: { allowLoopback: true },
    timeoutMs: 1000,
    rotationGraceMs: 0,
  };
}
