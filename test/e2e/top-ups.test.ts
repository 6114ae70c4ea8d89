import { Client, Connection } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatEther, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { sweepTopUps } from '../../activities/sweep-top-ups';
import { systemClock } from '../../activities/dependencies';
import { createChainRegistry, createEvmChain } from '../../chain/evm-chain';
import { startIntentWorkflow } from '../../client/intent-workflows';
import { topUpSweepScheduleId } from '../../client/sweep-schedules';
import { operatorOwner } from '../../domain/custody';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';
import { waitFor } from '../harness/stack/wait-for';
import { depositAsset } from '../../service/assets';
import { balancesOf } from '../../service/balances';
import { setUpTenant } from '../../service/tenants';
import { submitIntent } from '../../service/submit-intent';
import { walletStandings } from '../../service/wallet-standing';
import { registerEndpoint } from '../../service/webhooks';
import { evmChainSettings } from '../../workers/chain-settings';
import { loadConfig } from '../../workers/config/load';
import { testWebhookSettings } from '../harness/webhook-settings';
import { expectInvariants } from '../harness/invariants';
import { registeredTestToken } from '../harness/test-token';
import { useWorld } from '../harness/test-world';

jest.setTimeout(120_000);

const world = useWorld({ wallets: 2, tenants: { acme: '100' } });
let connection: Connection;
beforeAll(async () => {
  connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
});
world.onStop(async () => {
  await connection?.close();
});

describe('treasury top-ups', () => {
  it('hot wallets below their marks get one top-up per asset however many sweeps race, confirmed from the treasury, the house paying its gas; a drained wallet pays again', async () => {
    const { database, anvil } = world;
    const taskQueue = `top-ups-${randomUUID()}`;
    const treasuryKey = anvil.keys[world.wallets.length]!;
    const treasury = privateKeyToAccount(treasuryKey).address;
    const [drained, full] = world.wallets as [`0x${string}`, `0x${string}`];
    // Each hot wallet holds a million TUSD: both are below a mark of 1 000 001, topped up to
    // 1 000 010 from the treasury's own.
    const tusd = await registeredTestToken(world, { alias: 'TUSD', decimals: 6, tenants: {} });
    await tusd.token.write('mint', [treasury, 1000n * 10n ** 6n]);
    const dir = mkdtempSync(join(tmpdir(), 'top-ups-'));
    const chainsFile = join(dir, 'chains.yaml');
    writeFileSync(
      chainsFile,
      [
        'chains:',
        `  - chainId: ${anvil.chainId}`,
        '    name: home',
        `    rpc: [${world.env().RPC_URLS}]`,
        `    treasury: '${treasury}'`,
        '    lowBalanceEth: 0.5',
        '    topUpTargetEth: 2',
        "    treasuryLowBalanceEth: 20000 # above the dev account's 10 000: low from the start",
        `    tokenTopUps: [{ token: '${tusd.token.address}', lowBalance: '1000001', topUpTarget: '1000010' }]`,
        '',
      ].join('\n'),
    );
    const settings = {
      TASK_QUEUE: taskQueue,
      CHAINS_FILE: chainsFile,
      CHAIN_ID: '',
      RPC_URLS: '',
      HOT_WALLET_KEYS: [...world.walletKeys, treasuryKey].join(','),
      TOP_UP_SWEEP_MS: '1000',
    };
    await world.testClient.setBalance({ address: drained, value: parseEther('0.05') });
    // The operators' endpoint is told of the wallets (its deliveries fail: the outbox is checked).
    const operator = { role: 'operator', keyId: 'test', label: 'test' } as const;
    await expect(
      registerEndpoint(
        { database, webhooks: testWebhookSettings() },
        { role: 'tenant', tenantId: 'acme', keyId: 'test', label: 'test' },
        { url: 'http://127.0.0.1:9/hooks', eventTypes: ['wallet.topped_up'] },
      ),
    ).rejects.toMatchObject({ message: expect.stringMatching(/operators' endpoints only/) });
    const endpoint = await registerEndpoint(
      { database, webhooks: testWebhookSettings() },
      operator,
      {
        url: 'http://127.0.0.1:9/hooks',
      },
    );
    expect(endpoint.tenantId).toBe(operatorOwner);
    // The operators' owner is no tenant: nothing can be deposited to it or paid for it.
    await expect(
      setUpTenant(database, { id: operatorOwner, name: 'x' }, new Date()),
    ).rejects.toMatchObject({ name: 'InvalidIntent' });
    await expect(
      depositAsset(
        database,
        { tenantId: operatorOwner, chainId: anvil.chainId, asset: 'native', amount: 1n },
        new Date(),
      ),
    ).rejects.toMatchObject({ name: 'UnknownTenant' });

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
      // Four sweeps at once, as if four workers ran them: one top-up per wallet and asset.
      const sweeps = await Promise.all(
        Array.from({ length: 4 }, () => sweep({ chainId: anvil.chainId })),
      );
      const started = sweeps.flatMap((result) => result.started);
      expect(started).toHaveLength(3);
      const topUpRows = async () =>
        database.kysely
          .selectFrom('intents')
          .selectAll()
          .where('tenant_id', '=', operatorOwner)
          .orderBy('asset')
          .orderBy('to_address')
          .execute();
      const token = tusd.token.address;
      expect(
        (await topUpRows()).map((row) => [row.from_address, row.to_address, row.asset, row.amount]),
      ).toEqual(
        [
          [treasury, drained, 'native', parseEther('1.95').toString()],
          [treasury, drained, token, (10n * 10n ** 6n).toString()],
          [treasury, full, token, (10n * 10n ** 6n).toString()],
        ].sort((a, b) => `${a[2]}/${a[1]}`.localeCompare(`${b[2]}/${b[1]}`)),
      );
      const topUpId = (await topUpRows()).find(
        (row) => row.to_address === drained && row.asset === 'native',
      )!.id;
      // Operators see them under way in the wallets list, the treasury beside the hot wallets.
      const standing = await walletStandings({
        database,
        chains,
        lowBalanceWei: parseEther('0.5'),
      });
      expect(
        standing.map((w) => [w.address, w.role, w.low, w.topUps.map((t) => t.asset).sort()]),
      ).toEqual(
        expect.arrayContaining([
          [drained, 'hot', true, [token, 'native'].sort()],
          [full, 'hot', false, [token]],
          [treasury, 'treasury', true, []],
        ]),
      );

      // A worker runs it (and its own schedule's sweeps, which find it under way).
      await world.spawnWorkers(1, settings);
      await waitFor(
        async () => (await topUpRows()).every((row) => row.status === 'confirmed'),
        'the top-ups to be confirmed',
        60_000,
      );
      expect(await world.testClient.getBalance({ address: drained })).toBe(parseEther('2'));
      for (const wallet of [drained, full]) {
        expect(await tusd.token.balanceOf(wallet)).toBe(1_000_010n * 10n ** 6n);
      }
      const described = await client.workflow
        .getHandle(paymentIntentWorkflowId(topUpId))
        .describe();
      expect(described.type).toBe('walletTopUpV2');

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
      const topUps = await topUpRows();
      expect(topUps.map((row) => row.status)).toEqual(['confirmed', 'confirmed', 'confirmed']);
      const nativeTopUp = topUps.find((row) => row.id === topUpId)!;

      // Custody changes no tenant's books: the top-up posted its gas only, the house paying it.
      const postings = await database.kysely
        .selectFrom('postings')
        .select(['entry', 'owner', 'kind', 'amount'])
        .where('intent_id', '=', topUpId)
        .orderBy('id')
        .execute();
      const gas = BigInt(nativeTopUp.fee_paid!);
      expect(gas > 0n).toBe(true);
      expect(postings.map((p) => [p.entry, p.owner, p.kind, BigInt(p.amount)])).toEqual([
        ['gas', '@system', 'house', -gas],
        ['gas', '@system', 'fees', gas],
      ]);
      const [acme] = await balancesOf(database, 'acme');
      expect(acme!.available + acme!.held).toBe(parseEther('99'));

      // The operators were told, once each: the dips (the drained one with its top-up), the
      // top-ups, the low treasury.
      const events = await database.kysely
        .selectFrom('webhook_events')
        .select(['intent_id', 'type', 'body'])
        .where('tenant_id', '=', operatorOwner)
        .where('type', 'not like', 'intent.%')
        .execute();
      const told = events.map((event) => {
        const { data } = JSON.parse(event.body) as { data: { asset: string; wallet: string } };
        expect(event.intent_id).toBe(`wallet:${anvil.chainId}:${data.wallet}`);
        return [event.type, data.wallet, data.asset].join(' ');
      });
      // The treasury is told at the sweep's end: a top-up may be confirmed before that.
      expect(told.sort()).toEqual(
        [
          `treasury.low_balance ${treasury} native`,
          `wallet.low_balance ${drained} native`,
          `wallet.low_balance ${drained} ${token}`,
          `wallet.low_balance ${full} ${token}`,
          `wallet.topped_up ${drained} native`,
          `wallet.topped_up ${drained} ${token}`,
          `wallet.topped_up ${full} ${token}`,
        ].sort(),
      );
      const bodyOf = (type: string) =>
        events
          .filter((event) => event.type === type)
          .map((event) => JSON.parse(event.body) as { data: Record<string, unknown> })
          .find((body) => body.data.wallet === drained && body.data.asset === 'native')!;
      expect(bodyOf('wallet.low_balance')).toMatchObject({
        data: { balance: parseEther('0.05').toString(), topUpId },
      });
      expect(bodyOf('wallet.topped_up')).toMatchObject({
        data: { amount: parseEther('1.95').toString(), topUpId },
      });
      console.log(
        `top-up ${topUpId}: ${formatEther(BigInt(nativeTopUp.amount))} ETH ${treasury} → ${drained}, gas ${gas} wei (house)`,
      );
      await expectInvariants({
        world,
        deposits: { acme: parseEther('100') },
        accepted: [...topUps.map((row) => row.id), intent.id],
        wallets: [...world.wallets, treasury],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await client.schedule
        .getHandle(topUpSweepScheduleId(taskQueue, anvil.chainId))
        .delete()
        .catch(() => undefined);
    }
  });
});
