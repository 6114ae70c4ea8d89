import { createWalletClient, http, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createActivities } from '../../activities';
import type { ChainRegistry } from '../../chain/chain';
import { systemClock } from '../../activities/dependencies';
import { getIntent, insertIntent } from '../../store/intents';
import { tenantBalance } from '../../store/ledger';
import type { Throttle } from '../../throttle/throttle';
import { ApiError, type RelayerApiClient } from '../../cli/api-client';
import { parseNewIntent } from '../../domain/intent-request';
import { newIntentId } from '../../operations/new-intent-id';
import { waitFor } from '../../dev/stack/wait-for';
import { startRelayerProcess } from '../../workers/relayer-process';
import { createKeys, startApiWithoutWorkers, type ApiUnderTest } from '../support/api';
import { expectBooksBalanced } from '../support/ledger-checks';
import { startTestWorld, type TestWorld } from '../support/test-world';
import { startTestThrottle } from '../support/test-throttle';
import { runActivity } from '../support/run-activity';

let world: TestWorld;
let api: ApiUnderTest;
let throttle: Throttle;
let operator: RelayerApiClient;
let tenant: RelayerApiClient;
beforeAll(async () => {
  world = await startTestWorld({ tenants: { acme: '10' } });
  api = await startApiWithoutWorkers(world);
  const keys = await createKeys(world, ['acme']);
  operator = api.as(keys.operator);
  tenant = api.as(keys.acme);
  throttle = await startTestThrottle();
});
afterAll(async () => {
  await throttle?.close();
  await api?.close();
  await world?.stop();
});

const run = runActivity;

/** The world's chains, except that broadcasts never reach the node (a send lost in transit). */
const sendsLost = (): ChainRegistry => ({
  chainIds: world.chains.chainIds,
  get: (chainId) => ({ ...world.chains.get(chainId), broadcast: async () => 'sent' }),
});

/**
 * An intent taken through the real steps up to its broadcast, then closed the way a workflow
 * closes one whose outcome it cannot know: needs_review, its hold kept.
 */
async function intentInReview(options: { sent: boolean; wallet?: number }) {
  const activities = createActivities({
    db: world.database,
    chains: options.sent ? world.chains : sendsLost(),
    throttle,
    clock: systemClock,
    permitReleaseQueue: 'unused',
  });
  const request = parseNewIntent({
    tenantId: 'acme',
    chainId: world.anvil.chainId,
    from: world.wallets[options.wallet ?? 0],
    // A recipient of its own: another intent's transaction must never match this one.
    to: privateKeyToAccount(generatePrivateKey()).address,
    amount: parseEther('0.25').toString(),
  });
  const { intent } = await insertIntent(world.database.kysely, newIntentId(), request, new Date());
  await run(activities.markSettling, { intentId: intent.id });
  await run(activities.hold, { intentId: intent.id });
  const { txHash } = await run(activities.broadcast, { intentId: intent.id });
  // anvil mines at once, but its receipt can lag the send's reply by a moment.
  if (options.sent) await world.testClient.waitForTransactionReceipt({ hash: txHash });
  const closed = await run(activities.closeIntent, {
    intentId: intent.id,
    reason: 'ConfirmationTimeout: not confirmed in time',
  });
  expect(closed.status).toBe('needs_review');
  return getIntent(world.database.kysely, intent.id);
}

async function refusal(
  call: Promise<unknown>,
): Promise<{ status: number; code: string; problem?: unknown }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiError) {
      return { status: error.status, code: error.body.code, problem: error.body.details?.problem };
    }
    throw error;
  }
  throw new Error('the call succeeded');
}

const held = async () => (await tenantBalance(world.database.kysely, 'acme'))!.held;

describe('operator review of needs_review intents', () => {
  it('resolves as confirmed only with a transaction that really paid it', async () => {
    const intent = await intentInReview({ sent: true });
    const other = await intentInReview({ sent: true });
    expect(await refusal(operator.review(intent.id, 'confirm', { txHash: other.txHash! }))).toEqual(
      {
        status: 409,
        code: 'review_refused',
        problem: 'transaction_mismatch',
      },
    );
    expect(
      await refusal(operator.review(intent.id, 'confirm', { txHash: `0x${'7'.repeat(64)}` })),
    ).toMatchObject({
      problem: 'transaction_not_found',
    });
    expect(await refusal(operator.review(intent.id, 'fail', { reason: 'gave up' }))).toMatchObject({
      status: 409,
      problem: 'transaction_mined',
    });
    expect(
      await refusal(tenant.review(intent.id, 'confirm', { txHash: intent.txHash! })),
    ).toMatchObject({
      status: 403,
      code: 'forbidden',
    });

    const heldBefore = await held();
    const resolved = await operator.review(intent.id, 'confirm', {
      txHash: intent.txHash!,
      note: 'seen on explorer',
    });
    expect(resolved).toMatchObject({ status: 'confirmed', txHash: intent.txHash });
    expect(heldBefore - (await held())).toBe(parseEther('0.25'));
    const [entry] = await operator.audit(intent.id);
    expect(entry).toMatchObject({
      action: 'resolve_confirmed',
      actor: expect.stringMatching(/^operator key [0-9a-f]{16} \(test operator\)$/),
      detail: { txHash: intent.txHash, note: 'seen on explorer' },
    });
    expect(await refusal(operator.review(intent.id, 'fail', { reason: 'late' }))).toMatchObject({
      status: 409,
      code: 'not_in_review',
    });
    await operator.review(other.id, 'confirm', { txHash: other.txHash! });
    await expectBooksBalanced(world.database);
  });

  it('retries a signed transaction that never reached the node: same bytes, followed to confirmed', async () => {
    const intent = await intentInReview({ sent: false });
    expect(
      await world.testClient.getTransaction({ hash: intent.txHash! }).catch(() => undefined),
    ).toBeUndefined();
    expect(await refusal(operator.review(intent.id, 'fail', { reason: 'lost' }))).toMatchObject({
      status: 409,
      problem: 'transaction_may_still_land',
    });
    const retried = await operator.review(intent.id, 'retry', { note: 'node restarted' });
    expect(retried.status).toBe('signed');
    const relayer = await startRelayerProcess(world.config({ TASK_QUEUE: api.taskQueue }));
    try {
      await waitFor(
        async () => (await operator.get(intent.id)).status === 'confirmed',
        'the retry to confirm',
        30_000,
      );
    } finally {
      await relayer.stop();
    }
    const done = await operator.get(intent.id);
    expect(done).toMatchObject({ txHash: intent.txHash, nonce: intent.nonce });
    const receipt = await world.testClient.getTransactionReceipt({ hash: intent.txHash! });
    expect(receipt.status).toBe('success');
    expect((await operator.audit(intent.id)).map((e) => e.action)).toEqual(['retry']);
    await expectBooksBalanced(world.database);
  });

  it('fails an intent whose nonce another transaction used, and gives the hold back', async () => {
    const intent = await intentInReview({ sent: false, wallet: 1 });
    // Someone spends the nonce from the same wallet outside the relayer.
    const wallet = createWalletClient({
      account: privateKeyToAccount(world.walletKeys[1]!),
      transport: http(world.anvil.rpcUrl),
    });
    await wallet.sendTransaction({
      to: intent.to,
      value: 1n,
      nonce: intent.nonce!,
      chain: null,
      chainId: world.anvil.chainId,
    });
    expect(await refusal(operator.review(intent.id, 'retry', {}))).toMatchObject({
      status: 409,
      problem: 'transaction_taken',
    });
    const heldBefore = await held();
    const failed = await operator.review(intent.id, 'fail', {
      reason: 'nonce used by a manual transfer',
    });
    expect(failed.status).toBe('failed');
    expect(failed.reason).toMatch(
      /resolved as failed by operator key .*: nonce used by a manual transfer/,
    );
    expect(heldBefore - (await held())).toBe(parseEther('0.25'));
    await expectBooksBalanced(world.database);
  });
});
