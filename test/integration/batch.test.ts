import { randomUUID } from 'node:crypto';
import { parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { mostItemsActiveAtOnce } from '../../store/batch-results';
import { createTenant, deposit } from '../../store/ledger';
import { createApiClient, ApiError, type RelayerApiClient } from '../../cli/api-client';
import { freePort } from '../harness/stack/free-port';
import { minedTransactions } from '../harness/stack/chain-truth';
import { waitFor } from '../harness/stack/wait-for';
import { startRelayerProcess, type RelayerProcess } from '../../workers/relayer-process';
import { createKeys, databaseSnapshot } from '../harness/api';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { useWorld } from '../harness/test-world';

const world = useWorld({ wallets: 3, tenants: { acme: '100' } });
let relayer: RelayerProcess;
let api: RelayerApiClient;
beforeAll(async () => {
  await world.database.kysely.updateTable('tenants').set({ max_in_flight: 50 }).execute();
  relayer = await startRelayerProcess(
    world.config({
      API_PORT: String(await freePort()),
      TASK_QUEUE: `batch-${randomUUID()}`,
      POOL_WIDTH: '16',
      THROTTLE_MAX_IN_FLIGHT: '8',
      THROTTLE_PER_SECOND: '100',
      THROTTLE_BURST: '100',
    }),
    ['worker', 'api'],
  );
  const keys = await createKeys(world, ['acme']);
  api = createApiClient(relayer.apiUrl!, keys.acme);
}, 120_000);
world.onStop(async () => {
  await relayer?.stop();
});

/** Item i pays its own recipient i wei more than item i-1, so a mix-up would show. */
const itemFor = (i: number) => ({
  chainId: world.anvil.chainId,
  from: world.wallets[i % 3]!,
  to: privateKeyToAccount(`0x${(i + 1).toString(16).padStart(64, '0')}`).address,
  amount: String(1_000_000 + i),
});

/**
 * Items in the batch below: enough for every wallet's items to sign in several turns at 8 wide.
 * (200 took ~40 s alone and over a minute beside the other suites; the deep suite's 2,000-item
 * batch, test/deep/large-batch.test.ts, re-proves order and bounds at scale.)
 */
const itemCount = 60;

jest.setTimeout(240_000);

describe('a batch on the dev server, anvil and SQLite', () => {
  it(`${itemCount} items, concurrency 8, three wallets: results in input order, nonces contiguous per wallet, never more than 8 active`, async () => {
    const startBlock = await world.testClient.getBlockNumber({ cacheTime: 0 });
    const items = Array.from({ length: itemCount }, (_, i) => itemFor(i));
    // Nothing is mined at first, so no item can end: the batch must fill its 8 slots and stop there.
    await world.testClient.setAutomine(false);
    const submitted = await api.submitBatch({ items, concurrency: 8 }, 'payroll-2026-11');
    expect(submitted.status).toBe(202);
    const again = await api.submitBatch({ items, concurrency: 8 }, 'payroll-2026-11');
    expect({ status: again.status, id: again.body.id }).toEqual({
      status: 200,
      id: submitted.body.id,
    });

    const batchId = submitted.body.id;
    const startedItems = async () =>
      (
        await world.database.kysely
          .selectFrom('batch_items')
          .select('item_index')
          .where('batch_id', '=', batchId)
          .where('started_at', 'is not', null)
          .execute()
      ).length;
    try {
      await waitFor(
        async () =>
          (await api.list({ status: 'confirming' })).intents.length === 8 &&
          (await startedItems()) >= 8,
        'eight items sent, waiting to be mined',
        60_000,
      );
      expect(await startedItems()).toBe(8);
    } finally {
      await world.testClient.setAutomine(true);
    }
    await world.testClient.mine({ blocks: 1 });
    await waitFor(
      async () => (await api.getBatch(batchId)).status !== 'running',
      'the batch to end',
      240_000,
    );
    const batch = await api.getBatch(batchId);
    expect(batch).toMatchObject({
      status: 'completed',
      itemCount,
      counts: { confirmed: itemCount },
    });

    const results = await api.batchResults(batchId);
    expect(results.map((r) => r.index)).toEqual(items.map((_, i) => i));
    const intents = await world.database.kysely.selectFrom('intents').selectAll().execute();
    const byId = new Map(intents.map((row) => [row.id, row]));
    for (const [i, result] of results.entries()) {
      const intent = byId.get(result.intentId!)!;
      expect({
        i,
        status: result.status,
        to: intent.to_address,
        amount: intent.amount,
        tx: result.txHash,
      }).toEqual({
        i,
        status: 'confirmed',
        to: items[i]!.to,
        amount: items[i]!.amount,
        tx: intent.tx_hash,
      });
    }

    for (const wallet of world.wallets) {
      const nonces = results
        .filter((_, i) => items[i]!.from === wallet)
        .map((result) => byId.get(result.intentId!)!.nonce!);
      const first = nonces[0]!;
      expect(nonces).toEqual(nonces.map((_, k) => first + k));
    }
    const mined = await minedTransactions(world, startBlock);
    expect(mined).toHaveLength(itemCount);
    expect(new Set(mined.map((tx) => tx.hash))).toEqual(new Set(results.map((r) => r.txHash)));

    const most = await mostItemsActiveAtOnce(world.database.kysely, batchId);
    expect(most).toBe(8);
    await expectBooksBalanced(world.database);
  });

  it('keeps a tenant within its in-flight limit inside a batch', async () => {
    await createTenant(world.database, { id: 'small', name: 'small', maxInFlight: 2 }, new Date());
    await deposit(world.database, 'small', parseEther('1'), new Date(), world.nativeBook);
    const { small } = await createKeys(world, ['small']);
    const client = createApiClient(relayer.apiUrl!, small);
    const items = Array.from({ length: 20 }, (_, i) => itemFor(300 + i));
    const { body } = await client.submitBatch({ items, concurrency: 8 }, 'small-batch');
    await waitFor(
      async () => (await client.getBatch(body.id)).status !== 'running',
      'the batch',
      120_000,
    );
    expect((await client.getBatch(body.id)).counts).toEqual({ confirmed: 20 });
    // Open intents of the tenant, from each intent's own record: created, and ended (its last
    // update). The batch's item windows end later, when the batch has recorded the outcome.
    const intents = await world.database.kysely
      .selectFrom('intents')
      .select(['created_at', 'updated_at'])
      .where('tenant_id', '=', 'small')
      .execute();
    const events = intents
      .flatMap((row) => [
        { at: new Date(row.created_at).getTime(), change: 1 },
        { at: new Date(row.updated_at).getTime(), change: -1 },
      ])
      .sort((a, b) => a.at - b.at || a.change - b.change);
    let open = 0;
    let mostOpen = 0;
    for (const event of events) mostOpen = Math.max(mostOpen, (open += event.change));
    expect(mostOpen).toBe(2);
  });

  it("carries each item's reference and metadata to its intent and its result; another body under the key is 422", async () => {
    const items = [0, 1, 2].map((i) => ({
      ...itemFor(400 + i),
      reference: `payroll-12-${i}`,
      ...(i !== 1 && { metadata: { employee: `e${i}`, run: 'december' } }),
    }));
    const { body } = await api.submitBatch({ items, concurrency: 3 }, 'marked-batch');
    await waitFor(
      async () => (await api.getBatch(body.id)).status !== 'running',
      'the marked batch',
      120_000,
    );
    const results = await api.batchResults(body.id);
    expect(results.map((r) => [r.status, r.reference, r.metadata])).toEqual([
      ['confirmed', 'payroll-12-0', { employee: 'e0', run: 'december' }],
      ['confirmed', 'payroll-12-1', {}],
      ['confirmed', 'payroll-12-2', { employee: 'e2', run: 'december' }],
    ]);
    const intent = await api.get(results[2]!.intentId!);
    expect([intent.reference, intent.metadata]).toEqual([
      'payroll-12-2',
      { employee: 'e2', run: 'december' },
    ]);
    expect((await api.list({ metadata: { run: 'december' } })).intents).toHaveLength(2);
    // The same key with other metadata is another batch.
    const other = items.map((item) => ({ ...item, metadata: { run: 'january' } }));
    const refused = await api.submitBatch({ items: other }, 'marked-batch').catch((e) => e);
    expect((refused as ApiError).status).toBe(422);
  });

  it('refuses a batch with a bad item by its index and writes nothing', async () => {
    const before = await databaseSnapshot(world);
    const items = [itemFor(0), { ...itemFor(1), to: '0x1234' }, { ...itemFor(2), amount: '-5' }];
    const error = await api.submitBatch({ items }, 'bad-rows').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).body.issues?.map((issue) => issue.field)).toEqual([
      'body.items.1.to',
      'body.items.2.amount',
    ]);
    expect(await databaseSnapshot(world)).toEqual(before);
  });
});

describe('a batch stopping early, on the store', () => {
  // In the batch's item order: without it PostgreSQL returns rows in whatever order their last
  // update left them, and the comparison with the results (in item order) failed by chance.
  const intentsOf = (tenantId: string) =>
    world.database.kysely
      .selectFrom('intents')
      .innerJoin('batch_items', 'batch_items.intent_id', 'intents.id')
      .select([
        'intents.id',
        'intents.status',
        'intents.tx_hash',
        'intents.reason_code',
        'intents.amount',
      ])
      .where('intents.tenant_id', '=', tenantId)
      .orderBy('batch_items.item_index')
      .execute();

  it('fail_fast: an item refused at its turn stops the batch; no later item is admitted', async () => {
    await createTenant(world.database, { id: 'ff', name: 'ff', maxInFlight: 10 }, new Date());
    await deposit(world.database, 'ff', parseEther('1'), new Date(), world.nativeBook);
    const { ff } = await createKeys(world, ['ff']);
    const client = createApiClient(relayer.apiUrl!, ff);
    // Item 2 asks for more than the tenant holds: refused when its turn comes.
    const items = [0, 1, 2, 3, 4].map((i) => ({
      ...itemFor(400 + i),
      amount: (i === 2 ? parseEther('5') : parseEther('0.1')).toString(),
    }));
    const { body } = await client.submitBatch(
      { items, concurrency: 1, mode: 'fail_fast' },
      'ff-batch',
    );
    await waitFor(
      async () => (await client.getBatch(body.id)).status !== 'running',
      'the batch to stop',
      60_000,
    );
    expect(await client.getBatch(body.id)).toMatchObject({
      status: 'stopped',
      cause: 'item 2 ended rejected',
      causeCode: 'item_failed',
      counts: { confirmed: 2, rejected: 1, skipped: 2 },
    });
    const results = await client.batchResults(body.id);
    expect(results.map((result) => [result.status, result.errorCode])).toEqual([
      ['confirmed', null],
      ['confirmed', null],
      ['rejected', 'insufficient_balance'],
      ['skipped', null],
      ['skipped', null],
    ]);
    const intents = await intentsOf('ff');
    expect(intents.map((intent) => intent.status)).toEqual(['confirmed', 'confirmed']);
    await expectBooksBalanced(world.database);
  });

  it('a cancel mid-batch cancels the running items with nothing signed, follows the signed ones, skips the rest', async () => {
    // A permit a second, nothing mined: of the running items one is sent at once and the others
    // are signed a second apart, so the cancel comes while some still have nothing signed.
    const slow = await startRelayerProcess(
      world.config({
        API_PORT: String(await freePort()),
        TASK_QUEUE: `batch-slow-${randomUUID()}`,
        THROTTLE_PER_SECOND: '1',
        THROTTLE_BURST: '1',
      }),
      ['worker', 'api'],
    );
    await world.testClient.setAutomine(false);
    try {
      await createTenant(world.database, { id: 'stop', name: 'stop', maxInFlight: 20 }, new Date());
      await deposit(world.database, 'stop', parseEther('1'), new Date(), world.nativeBook);
      const { stop } = await createKeys(world, ['stop']);
      const client = createApiClient(slow.apiUrl!, stop);
      const items = Array.from({ length: 12 }, (_, i) => itemFor(500 + i));
      const { body } = await client.submitBatch({ items, concurrency: 8 }, 'stop-batch');
      await waitFor(
        async () => (await intentsOf('stop')).some((intent) => intent.status === 'confirming'),
        'the first item sent',
        60_000,
      );
      await client.cancelBatch(body.id, 'payroll withdrawn');
      await waitFor(
        async () =>
          (await intentsOf('stop')).every((intent) =>
            ['confirming', 'cancelled'].includes(intent.status),
          ),
        'each running item sent or cancelled',
        60_000,
      );
      await world.testClient.setAutomine(true);
      await world.testClient.mine({ blocks: 1 });
      await waitFor(
        async () => (await client.getBatch(body.id)).status === 'cancelled',
        'the signed items followed to their end, and the batch ended',
        60_000,
      );
      // Items start one after another, up to eight: those not started by the cancel are skipped.
      const intents = await intentsOf('stop');
      expect(intents.length).toBeLessThanOrEqual(8);
      const results = await client.batchResults(body.id);
      expect(results.slice(intents.length).map((result) => result.status)).toEqual(
        Array(12 - intents.length).fill('skipped'),
      );
      // Each started item's result carries its intent's code, read from the store, not the text.
      expect(results.slice(0, intents.length).map((result) => result.reasonCode)).toEqual(
        intents.map((intent) => intent.reason_code),
      );
      expect(results.map((result) => result.reasonCode)).toContain('cancelled_by_caller');
      // A signed item is never cancelled; one with nothing signed is, its hold released.
      for (const intent of intents) {
        expect(
          intent.tx_hash === null
            ? { status: intent.status, code: intent.reason_code }
            : { status: intent.status, code: null },
        ).toEqual(
          intent.tx_hash === null
            ? { status: 'cancelled', code: 'cancelled_by_caller' }
            : { status: 'confirmed', code: null },
        );
      }
      const byStatus = (status: string) => intents.filter((i) => i.status === status).length;
      expect(byStatus('confirmed')).toBeGreaterThan(0);
      expect(byStatus('cancelled')).toBeGreaterThan(0);
      expect(await client.getBatch(body.id)).toMatchObject({
        cause: expect.stringMatching(
          /^cancelled: payroll withdrawn \(tenant stop key \w+ \(test\)\)$/,
        ),
        causeCode: 'cancelled_by_caller',
        counts: {
          confirmed: byStatus('confirmed'),
          cancelled: byStatus('cancelled'),
          skipped: 12 - intents.length,
        },
      });
      await expectBooksBalanced(world.database);
    } finally {
      await world.testClient.setAutomine(true);
      await slow.stop();
    }
  });
});
