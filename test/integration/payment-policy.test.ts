import type { ApplicationFailure } from '@temporalio/common';
import { parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createActivities, type RelayerActivities } from '../../activities';
import type { ApiError, RelayerApiClient } from '../../cli/api-client';
import { ErrorName } from '../../domain/error-catalogue';
import { IntentStatus, type Intent } from '../../domain/intent';
import { parseNewIntent } from '../../domain/intent-request';
import { admitIntent } from '../../operations/admit-intent';
import { placeHold, endHold } from '../../store/holds';
import { getIntent } from '../../store/intents';
import { createTenant, deposit, tenantBalance } from '../../store/ledger';
import type { Throttle } from '../../throttle/throttle';
import { waitFor } from '../harness/stack/wait-for';
import { startRelayerProcess } from '../../workers/relayer-process';
import {
  createKeys,
  databaseSnapshot,
  startApiWithoutWorkers,
  type ApiUnderTest,
} from '../harness/api';
import { apiRefusal as refusal } from '../harness/api';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { failureType, runActivity } from '../harness/run-activity';
import { startTestThrottle } from '../harness/test-throttle';
import { useWorld } from '../harness/test-world';

// A tenant's payment policy: every rule at its boundary, checked at admission, at the hold and
// before the first signing, with the books balanced throughout.

const world = useWorld({ tenants: {} });
let throttle: Throttle;
let api: ApiUnderTest;
let operator: RelayerApiClient;
const tenantKeys: Record<string, RelayerApiClient> = {};
let keys: Record<(typeof tenants)[number] | 'operator', string>;
const tenants = ['limits', 'window', 'lists', 'race', 'held', 'signing', 'flow', 'rows'] as const;

beforeAll(async () => {
  for (const id of tenants) {
    await createTenant(world.database, { id, name: id, maxInFlight: 100 }, new Date());
    await deposit(world.database, id, parseEther('100'), new Date(), world.nativeBook);
  }
  throttle = await startTestThrottle();
  api = await startApiWithoutWorkers(world, { tenantMaxInFlight: 100 });
  keys = await createKeys(world, [...tenants]);
  operator = api.as(keys.operator);
  for (const id of tenants) tenantKeys[id] = api.as(keys[id]);
});
world.onStop(async () => {
  await api?.close();
  await throttle?.close();
});

const eth = (value: string) => parseEther(value).toString();
const recipientAt = (i: number) =>
  privateKeyToAccount(`0x${(i + 1).toString(16).padStart(64, '7')}`).address;

const payment = (amount: string, to: `0x${string}` = recipientAt(0)) => ({
  chainId: world.anvil.chainId,
  from: world.wallets[0]!,
  to,
  amount: eth(amount),
});

let keyCounter = 0;
const submit = (tenantId: string, amount: string, to?: `0x${string}`) =>
  tenantKeys[tenantId]!.submit(payment(amount, to), `k-${++keyCounter}`);

function activities(clock = () => new Date()): RelayerActivities {
  return createActivities({
    db: world.database,
    chains: world.chains,
    throttle,
    clock: { now: clock },
    permitReleaseQueue: 'q',
  });
}

describe('policy at admission', () => {
  it('most per intent: at and below admitted, above refused with the rule and figures, nothing written', async () => {
    const set = await operator.setPolicyLimits('limits', {
      chainId: world.anvil.chainId,
      maxPerIntent: eth('1'),
    });
    expect(set).toMatchObject({
      version: 1,
      limits: [{ asset: 'native', maxPerIntent: eth('1') }],
    });
    expect((await submit('limits', '0.999')).status).toBe(202);
    const at = await submit('limits', '1');
    expect(at.status).toBe(202);
    expect(at.body).toMatchObject({ policyVersion: 1, submittedBy: expect.any(String) });

    const before = await databaseSnapshot(world);
    const above = await refusal(submit('limits', '1.000000000000000001'));
    expect(above.status).toBe(422);
    expect(above.body).toMatchObject({
      code: 'policy_violation',
      details: {
        rule: 'max_per_intent',
        policyVersion: 1,
        limit: eth('1'),
        wouldBe: '1000000000000000001',
      },
    });
    expect(above.body.message).toContain('at most 1 ETH an intent');
    expect(await databaseSnapshot(world)).toEqual(before);
  });

  it('24 h and 7 day limits count open intents and what was paid in the window, sliding with the clock', async () => {
    await operator.setPolicyLimits('window', {
      chainId: world.anvil.chainId,
      perDay: eth('3'),
      perWeek: eth('5'),
    });
    const start = new Date('2026-06-01T12:00:00.000Z');
    let now = start;
    const clock = () => now;
    const admit = (amount: string) =>
      admitIntent(
        world.database,
        parseNewIntent({ tenantId: 'window', ...payment(amount) }),
        {},
        undefined,
        clock,
      );
    /** What its workflow would do to the books: hold, then capture, at the clock's time. */
    const paid = async (intent: Intent) => {
      await world.database.transaction(async (trx) => {
        const hold = {
          intentId: intent.id,
          tenantId: intent.tenantId,
          chainId: intent.chainId,
          asset: world.nativeBook,
          amount: intent.amount,
          feeHeld: 0n,
        };
        await placeHold(world.database, trx, hold, now);
        await endHold(world.database, trx, intent.id, 'captured', now, 0n);
        await trx
          .updateTable('intents')
          .set({ status: IntentStatus.confirmed, version: intent.version + 1 })
          .where('id', '=', intent.id)
          .execute();
      });
    };
    const first = await admit('2');
    // Open, not paid yet: it counts already.
    await expect(admit('1.5')).rejects.toMatchObject({
      name: ErrorName.policyViolation,
      details: { rule: 'limit_24h', limit: eth('3'), wouldBe: eth('3.5') },
    });
    await paid(first.intent);
    await paid((await admit('1')).intent); // exactly at the day's limit
    await expect(admit('0.000000000000000001')).rejects.toMatchObject({
      details: { rule: 'limit_24h' },
    });

    // 24 hours less a millisecond later both payments are still in the window …
    now = new Date(start.getTime() + 24 * 3600_000 - 1);
    await expect(admit('0.5')).rejects.toMatchObject({ details: { rule: 'limit_24h' } });
    // … at 24 hours they leave it: a day's room again, and the week's counts them still.
    now = new Date(start.getTime() + 24 * 3600_000);
    await paid((await admit('2')).intent);
    await expect(admit('0.000000000000000001')).rejects.toMatchObject({
      details: { rule: 'limit_7d', limit: eth('5'), wouldBe: '5000000000000000001' },
    });
    // Seven days after the first two, the week holds only the last one.
    now = new Date(start.getTime() + 7 * 24 * 3600_000);
    expect((await admit('3')).created).toBe(true);
    await expectBooksBalanced(world.database);
  });

  it('recipients: a denied one refused anywhere, an allow-list chain takes only its listed ones', async () => {
    const chainId = world.anvil.chainId;
    const [friend, stranger, foe] = [recipientAt(1), recipientAt(2), recipientAt(3)];
    await operator.addRecipient('lists', { chainId, address: foe, list: 'deny', label: 'fraud' });
    const denied = await refusal(submit('lists', '0.1', foe));
    expect(denied.body).toMatchObject({
      code: 'policy_violation',
      details: { rule: 'recipient_denied' },
    });
    expect(denied.body.message).toContain('(fraud)');
    expect((await submit('lists', '0.1', stranger)).status).toBe(202);

    await operator.setRecipientRule('lists', chainId, 'allow_list');
    await operator.addRecipient('lists', {
      chainId,
      address: friend.toLowerCase(),
      list: 'allow',
      label: 'payroll',
    });
    expect((await refusal(submit('lists', '0.1', stranger))).body.details).toMatchObject({
      rule: 'recipient_not_allowed',
    });
    expect((await submit('lists', '0.1', friend)).status).toBe(202);
    expect(await tenantKeys.lists!.recipients('lists')).toEqual([
      { chainId, address: friend, list: 'allow', label: 'payroll' },
      { chainId, address: foe, list: 'deny', label: 'fraud' },
    ]);
    await operator.removeRecipient('lists', chainId, friend);
    expect((await refusal(submit('lists', '0.1', friend))).body.details).toMatchObject({
      rule: 'recipient_not_allowed',
    });

    // Every change is a version saying who made it and what it was before.
    const changes = await operator.policyChanges('lists');
    expect(changes.map((change) => [change.version, change.change.what])).toEqual([
      [4, `recipient ${friend} on chain ${chainId}`],
      [3, `recipient ${friend} on chain ${chainId}`],
      [2, `recipients on chain ${chainId}`],
      [1, `recipient ${foe} on chain ${chainId}`],
    ]);
    expect(changes[0]).toMatchObject({
      changedBy: expect.stringContaining('operator key'),
      change: { before: { list: 'allow', label: 'payroll' }, after: null },
    });
    expect(changes[2]!.change).toMatchObject({ before: 'any', after: 'allow_list' });
  });

  it('a batch meets the policy at submit: a row over the limit, to a denied recipient, or past the day with the rows before it, is refused by its index; nothing written', async () => {
    const chainId = world.anvil.chainId;
    await operator.setPolicyLimits('rows', { chainId, maxPerIntent: eth('2'), perDay: eth('5') });
    const foe = recipientAt(4);
    await operator.addRecipient('rows', { chainId, address: foe, list: 'deny', label: 'fraud' });
    const batchOf = (...items: ReturnType<typeof payment>[]) =>
      tenantKeys.rows!.submitBatch({ items }, `rows-${++keyCounter}`);
    const before = await databaseSnapshot(world);
    const refusedRow = async (call: Promise<unknown>) => {
      const { status, body } = await refusal(call);
      return { status, code: body.code, details: body.details, message: body.message };
    };
    expect(await refusedRow(batchOf(payment('1'), payment('3')))).toMatchObject({
      status: 422,
      code: 'policy_violation',
      details: { rule: 'max_per_intent', item: 1, limit: eth('2'), wouldBe: eth('3') },
      message: expect.stringMatching(/^item 1: .*at most 2 ETH an intent/),
    });
    expect(await refusedRow(batchOf(payment('1'), payment('1', foe)))).toMatchObject({
      details: { rule: 'recipient_denied', item: 1 },
      message: expect.stringMatching(/^item 1: .*\(fraud\)/),
    });
    // 2 + 2 fit the day's 5; the third row would make it 6.
    expect(await refusedRow(batchOf(payment('2'), payment('2'), payment('2')))).toMatchObject({
      details: { rule: 'limit_24h', item: 2, wouldBe: eth('6') },
    });
    expect(await databaseSnapshot(world)).toEqual(before);
    const fits = await batchOf(payment('2'), payment('2'), payment('1'));
    expect(fits.status).toBe(202);
  });

  it('20 submits racing for a limit’s last room: exactly those that fit are admitted', async () => {
    await operator.setPolicyLimits('race', { chainId: world.anvil.chainId, perDay: eth('5') });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, () => submit('race', '1')),
    );
    const admitted = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(admitted).toHaveLength(5);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') {
        expect((outcome.reason as ApiError).body.details).toMatchObject({ rule: 'limit_24h' });
      }
    }
    const rows = await world.database.kysely
      .selectFrom('intents')
      .select('id')
      .where('tenant_id', '=', 'race')
      .execute();
    expect(rows).toHaveLength(5);
  });

  it("a tenant's key reads its own policy; another tenant's is refused 403, as documented, naming both", async () => {
    expect((await tenantKeys.lists!.policy('lists')).tenantId).toBe('lists');
    const foreign = await refusal(tenantKeys.lists!.policy('limits'));
    expect({ status: foreign.status, code: foreign.body.code }).toEqual({
      status: 403,
      code: 'forbidden',
    });
    expect(foreign.body.message).toBe(
      "this key is tenant lists's: it reads the payment policy of its own tenant only (asked for limits's); an operator key reads any tenant's",
    );
  });

  it('bad changes are refused naming the field, and write nothing', async () => {
    const chainId = world.anvil.chainId;
    const before = await operator.policy('limits');
    const cases: [Promise<unknown>, number, string][] = [
      [
        operator.setPolicyLimits('limits', { chainId, maxPerIntent: eth('3'), perDay: eth('2') }),
        400,
        'maxPerIntent',
      ],
      [operator.setPolicyLimits('limits', { chainId, perDay: '-1' }), 400, 'perDay'],
      [operator.setPolicyLimits('limits', { chainId, perWeek: '0' }), 400, 'perWeek'],
      [operator.setPolicyLimits('limits', { chainId, asset: 'NOPE', perDay: '1' }), 422, 'NOPE'],
      [operator.setPolicyLimits('nobody', { chainId, perDay: '1' }), 422, 'nobody'],
      [
        operator.addRecipient('limits', { chainId, address: '0x1234', list: 'allow', label: 'x' }),
        400,
        'address',
      ],
      [
        operator.addRecipient('limits', {
          chainId,
          address: recipientAt(1),
          list: 'allow',
          label: '',
        }),
        400,
        'label',
      ],
      [operator.removeRecipient('limits', chainId, recipientAt(9)), 400, 'address'],
      // A tenant's key reads its own policy but changes nothing.
      [
        tenantKeys.limits!.setPolicyLimits('limits', { chainId, perDay: '1' }),
        403,
        'policies:admin',
      ],
      [tenantKeys.limits!.policy('window'), 403, 'window'],
    ];
    for (const [call, status, named] of cases) {
      const refused = await refusal(call);
      expect([refused.status, refused.message]).toEqual([status, expect.stringContaining(named)]);
    }
    expect(await operator.policy('limits')).toEqual(before);
    expect(await tenantKeys.limits!.policy('limits')).toEqual(before);
  });
});

describe('policy after admission', () => {
  const admitted = async (tenantId: string, amount: string, to?: `0x${string}`) =>
    getIntent(world.database.kysely, (await submit(tenantId, amount, to)).body.id);

  it('20 holds racing for a lowered limit’s room: exactly those that fit are held, the rest fail holding nothing', async () => {
    const chainId = world.anvil.chainId;
    await operator.setPolicyLimits('held', { chainId, perDay: eth('20') });
    const intents = await Promise.all(Array.from({ length: 20 }, () => admitted('held', '1')));
    await operator.setPolicyLimits('held', { chainId, perDay: eth('7') });
    const steps = activities();
    for (const intent of intents) await runActivity(steps.markSettling, { intentId: intent.id });
    const outcomes = await Promise.allSettled(
      intents.map((intent) => runActivity(steps.hold, { intentId: intent.id })),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(7);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') {
        expect((outcome.reason as ApplicationFailure).type).toBe(ErrorName.policyViolation);
      }
    }
    const balance = await tenantBalance(world.database.kysely, 'held', world.nativeBook);
    expect(balance).toMatchObject({ held: parseEther('7'), available: parseEther('93') });
    await expectBooksBalanced(world.database);
  });

  it('a recipient denied between hold and signing: the broadcast signs nothing, the intent fails, its hold released', async () => {
    const chainId = world.anvil.chainId;
    const to = recipientAt(5);
    const intent = await admitted('signing', '1', to);
    const steps = activities();
    await runActivity(steps.markSettling, { intentId: intent.id });
    await runActivity(steps.hold, { intentId: intent.id });
    const nonce = await world.chain.pendingNonce(world.wallets[0]!);
    await operator.addRecipient('signing', {
      chainId,
      address: to,
      list: 'deny',
      label: 'sanctioned',
    });

    expect(await failureType(runActivity(steps.broadcast, { intentId: intent.id }))).toBe(
      ErrorName.policyViolation,
    );
    expect(await getIntent(world.database.kysely, intent.id)).toMatchObject({
      status: IntentStatus.held,
      txHash: null,
    });
    expect(await world.chain.pendingNonce(world.wallets[0]!)).toBe(nonce);
    const attempts = await world.database.kysely
      .selectFrom('transaction_attempts')
      .select('tx_hash')
      .where('intent_id', '=', intent.id)
      .execute();
    expect(attempts).toHaveLength(0);
    // The workflow then closes it as it closes any step's failure before signing.
    await runActivity(steps.closeIntent, {
      intentId: intent.id,
      reason: 'PolicyViolation: recipient_denied',
      reasonCode: 'policy_violation',
    });
    expect(await getIntent(world.database.kysely, intent.id)).toMatchObject({
      status: IntentStatus.failed,
    });
    expect(await tenantBalance(world.database.kysely, 'signing', world.nativeBook)).toMatchObject({
      held: 0n,
      available: parseEther('100'),
    });
    await expectBooksBalanced(world.database);
  });

  it('a limit lowered after admission: the workflow fails the intent unsigned with the rule, nothing held', async () => {
    const chainId = world.anvil.chainId;
    await operator.setPolicyLimits('flow', { chainId, maxPerIntent: eth('2') });
    const nonce = await world.chain.pendingNonce(world.wallets[0]!);
    // Its own task queue: the other tests' intents wait on the first API's, and stay there.
    const flowApi = await startApiWithoutWorkers(world, { tenantMaxInFlight: 100 });
    let relayer: Awaited<ReturnType<typeof startRelayerProcess>> | undefined;
    let intent: Intent;
    try {
      const submitted = await flowApi.as(keys.flow).submit(payment('1.5'), 'flow-1');
      intent = await getIntent(world.database.kysely, submitted.body.id);
      await operator.setPolicyLimits('flow', { chainId, maxPerIntent: eth('1') });
      relayer = await startRelayerProcess(world.config({ TASK_QUEUE: flowApi.taskQueue }));
      await waitFor(
        async () =>
          (await getIntent(world.database.kysely, intent.id)).status === IntentStatus.failed,
        'the intent failed',
        30_000,
      );
    } finally {
      await relayer?.stop();
      await flowApi.close();
    }
    const failed = await getIntent(world.database.kysely, intent.id);
    expect(failed).toMatchObject({ reasonCode: 'policy_violation', policyVersion: 1 });
    expect(failed.reason).toContain('max_per_intent: at most 1 ETH an intent');
    expect(await world.chain.pendingNonce(world.wallets[0]!)).toBe(nonce);
    expect(await tenantBalance(world.database.kysely, 'flow', world.nativeBook)).toMatchObject({
      held: 0n,
      available: parseEther('100'),
    });
    await expectBooksBalanced(world.database);
  });
});
