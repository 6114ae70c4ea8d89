import { createWalletClient, http, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createActivities } from '../../activities';
import type { ChainRegistry } from '../../chain/chain';
import { systemClock } from '../../activities/dependencies';
import { getIntent, insertIntent } from '../../store/intents';
import type { Hex } from '../../domain/transfer';
import { tenantBalance } from '../../store/ledger';
import type { Throttle } from '../../throttle/throttle';
import { ApiError, type RelayerApiClient } from '../../cli/api-client';
import { parseNewIntent } from '../../domain/intent-request';
import { newIntentId } from '../../operations/new-id';
import { waitFor } from '../harness/stack/wait-for';
import { startRelayerProcess } from '../../workers/relayer-process';
import { createKeys, startApiWithoutWorkers, type ApiUnderTest } from '../harness/api';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { useWorld } from '../harness/test-world';
import { startTestThrottle } from '../harness/test-throttle';
import { laneStuckBehindUnpayableIntent, newIntentFrom } from '../harness/unpayable-intent';
import { failureType, runActivity } from '../harness/run-activity';

const world = useWorld({ tenants: { acme: '10' }, wallets: 4 });
let api: ApiUnderTest;
let throttle: Throttle;
let operator: RelayerApiClient;
let tenant: RelayerApiClient;
beforeAll(async () => {
  api = await startApiWithoutWorkers(world);
  const keys = await createKeys(world, ['acme']);
  operator = api.as(keys.operator);
  tenant = api.as(keys.acme);
  throttle = await startTestThrottle();
});
world.onStop(async () => {
  await throttle?.close();
  await api?.close();
});

const run = runActivity;

/** The world's chains, except that broadcasts never reach the node (a send lost in transit). */
const sendsLost = (): ChainRegistry => ({
  chainIds: world.chains.chainIds,
  get: (chainId) => ({ ...world.chains.get(chainId), broadcast: async () => 'sent' }),
});

const activitiesOn = (chains: ChainRegistry) =>
  createActivities({
    db: world.database,
    chains,
    throttle,
    clock: systemClock,
    permitReleaseQueue: 'unused',
  });

/** An intent of 0.25 ether (or `ether`) from wallet `wallet`, to a recipient of its own. */
const newIntent = (wallet: number, ether = '0.25') => newIntentFrom(world, wallet, ether);

/**
 * An intent taken through the real steps up to its broadcast, then closed the way a workflow
 * closes one whose outcome it cannot know: needs_review, its hold kept. `sent: 'pending'`: the
 * node has it and does not mine it (automine off); `true`: mined.
 */
async function intentInReview(options: { sent: boolean | 'pending'; wallet?: number }) {
  const activities = activitiesOn(options.sent ? world.chains : sendsLost());
  const intent = await newIntent(options.wallet ?? 0);
  await run(activities.markSettling, { intentId: intent.id });
  await run(activities.hold, { intentId: intent.id });
  const { txHash } = await run(activities.broadcast, { intentId: intent.id });
  // anvil mines at once, but its receipt can lag the send's reply by a moment.
  if (options.sent === true) await world.testClient.waitForTransactionReceipt({ hash: txHash });
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

const held = async () =>
  (await tenantBalance(world.database.kysely, 'acme', world.nativeBook))!.held;

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
      code: 'scope_missing',
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

  it('refuses a decision taken on an earlier stay in review, writing nothing', async () => {
    const intent = await intentInReview({ sent: true });
    const activities = activitiesOn(world.chains);
    const stale = run(activities.resolveReview, {
      intentId: intent.id,
      decision: { action: 'confirm', txHash: intent.txHash! },
      actor: 'op',
      intentVersion: intent.version - 1,
    });
    expect(await failureType(stale)).toBe('NotInReview');
    expect(await getIntent(world.database.kysely, intent.id)).toMatchObject({
      status: 'needs_review',
      version: intent.version,
    });
    expect(await operator.audit(intent.id)).toEqual([]);
    const confirmed = await run(activities.resolveReview, {
      intentId: intent.id,
      decision: { action: 'confirm', txHash: intent.txHash! },
      actor: 'op',
      intentVersion: intent.version,
    });
    expect(confirmed.status).toBe('confirmed');
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
    expect(failed.reasonCode).toBe('failed_by_review');
    expect(failed.reason).toMatch(
      /resolved as failed by operator key .*: nonce used by a manual transfer/,
    );
    expect(heldBefore - (await held())).toBe(parseEther('0.25'));
    await expectBooksBalanced(world.database);
  });

  it('cancels a nonce the wallet cannot pay: the zero-value transfer is mined, the intent fails, the hold is released, the intents behind it are mined', async () => {
    const poor = world.wallets[2]!;
    const { stuck, behind } = await laneStuckBehindUnpayableIntent(
      world,
      activitiesOn(world.chains),
      2,
      4,
    );
    const heldBefore = await held();
    const cancelling = await operator.review(stuck.id, 'cancel', { note: 'wallet underfunded' });
    expect(cancelling).toMatchObject({ status: 'signed', nonce: stuck.nonce });
    expect(cancelling.txHash).not.toBe(stuck.txHash);
    const relayer = await startRelayerProcess(world.config({ TASK_QUEUE: api.taskQueue }));
    try {
      await waitFor(
        async () => (await operator.get(stuck.id)).status === 'failed',
        'the cancel to be mined',
        30_000,
      );
    } finally {
      await relayer.stop();
    }
    const cancelled = await operator.get(stuck.id);
    expect(cancelled.reasonCode).toBe('cancelled_on_chain');
    const cancel = await world.testClient.getTransaction({ hash: cancelling.txHash! as Hex });
    expect(cancel).toMatchObject({ from: poor.toLowerCase(), to: poor.toLowerCase(), value: 0n });
    expect(heldBefore - (await held())).toBe(parseEther('1'));
    const attempts = await operator.attempts(stuck.id);
    expect(attempts.map((a) => a.cause)).toEqual(['first', 'cancel']);
    expect((await operator.audit(stuck.id)).map((e) => e.action)).toEqual(['cancel_signed']);
    // Nothing else needed: the nonces behind the cancelled one are mined.
    for (const intent of behind) {
      const receipt = await world.testClient.waitForTransactionReceipt({
        hash: intent.txHash!,
        timeout: 10_000,
      });
      expect(receipt.status).toBe('success');
    }
    expect(await world.testClient.getBalance({ address: stuck.to })).toBe(0n);
  });

  it("a cancel that loses the race to the intent's own transaction ends confirmed", async () => {
    await world.testClient.setAutomine(false);
    try {
      const intent = await intentInReview({ sent: 'pending', wallet: 3 });
      const cancelling = await operator.review(intent.id, 'cancel', {});
      expect(cancelling.status).toBe('signed');
      // The original is mined before the cancel is sent.
      await world.testClient.mine({ blocks: 1 });
      await world.testClient.setAutomine(true);
      const relayer = await startRelayerProcess(world.config({ TASK_QUEUE: api.taskQueue }));
      try {
        await waitFor(
          async () => (await operator.get(intent.id)).status === 'confirmed',
          'the original to be confirmed',
          30_000,
        );
      } finally {
        await relayer.stop();
      }
      expect(await operator.get(intent.id)).toMatchObject({ txHash: intent.txHash });
      expect(await world.testClient.getBalance({ address: intent.to })).toBe(parseEther('0.25'));
      await expectBooksBalanced(world.database);
    } finally {
      await world.testClient.setAutomine(true);
    }
  });

  it('refuses a cancel of an intent not in review, or by a tenant, and writes nothing', async () => {
    const confirmed = await intentInReview({ sent: true });
    await operator.review(confirmed.id, 'confirm', { txHash: confirmed.txHash! });
    expect(await refusal(operator.review(confirmed.id, 'cancel', {}))).toMatchObject({
      status: 409,
      code: 'not_in_review',
    });
    const inReview = await intentInReview({ sent: false });
    expect(await refusal(tenant.review(inReview.id, 'cancel', {}))).toMatchObject({
      status: 403,
      code: 'scope_missing',
    });
    for (const intent of [confirmed, inReview]) {
      expect((await operator.attempts(intent.id)).map((a) => a.cause)).toEqual(['first']);
      expect((await operator.audit(intent.id)).map((e) => e.action)).not.toContain('cancel_signed');
    }
    expect(await getIntent(world.database.kysely, inReview.id)).toEqual(inReview);
  });

  it('a lane waiting on review takes no new intents: unpinned ones go to another wallet, pinned ones wait and say why', async () => {
    const blocker = await intentInReview({ sent: false, wallet: 1 });
    const activities = activitiesOn(world.chains);
    const pinned = await newIntent(1, '0.01');
    const unpinnedRequest = {
      ...parseNewIntent({
        tenantId: 'acme',
        chainId: world.anvil.chainId,
        to: privateKeyToAccount(generatePrivateKey()).address,
        amount: parseEther('0.01').toString(),
      }),
    };
    const { intent: unpinned } = await insertIntent(
      world.database.kysely,
      newIntentId(),
      unpinnedRequest,
      new Date(),
    );
    for (const intent of [pinned, unpinned]) {
      await run(activities.markSettling, { intentId: intent.id });
      await run(activities.hold, { intentId: intent.id });
    }

    await run(activities.broadcast, { intentId: unpinned.id });
    const moved = await getIntent(world.database.kysely, unpinned.id);
    expect(moved.status).toBe('confirming');
    expect(moved.from).not.toBeNull();
    expect(moved.from).not.toBe(world.wallets[1]);

    expect(await failureType(run(activities.broadcast, { intentId: pinned.id }))).toBe(
      'WalletBlocked',
    );
    const waiting = await operator.get(pinned.id);
    expect(waiting).toMatchObject({ status: 'held', txHash: null, reasonCode: 'wallet_blocked' });

    // The operator's decision frees the lane: the pinned intent is signed, its reason cleared.
    await operator.review(blocker.id, 'cancel', {});
    await run(activities.broadcast, { intentId: pinned.id });
    expect(await operator.get(pinned.id)).toMatchObject({ status: 'confirming', reason: null });
  });

  it('shows operators every wallet: balance, nonces in flight, a lane blocked by review, a low one also in /readyz', async () => {
    const blocker = await intentInReview({ sent: false, wallet: 3 });
    await world.testClient.setBalance({
      address: world.wallets[2]!,
      value: parseEther('0.05') - 1n,
    });
    // A balance is read again once a block touches the wallet: a transfer of 1 wei to it.
    const donor = privateKeyToAccount(world.anvil.keys.at(-1)!).address;
    await world.testClient.impersonateAccount({ address: donor });
    await world.testClient.sendUnsignedTransaction({
      from: donor,
      to: world.wallets[2]!,
      value: 1n,
    });
    const wallets = await operator.wallets();
    expect(wallets.map((wallet) => wallet.address).sort()).toEqual([...world.wallets].sort());
    const walletOf = (address: string) => wallets.find((wallet) => wallet.address === address);
    const [poor, blocked] = [walletOf(world.wallets[2]!), walletOf(world.wallets[3]!)];
    expect(blocked!.blockedBy).toBe(blocker.id);
    expect(poor).toMatchObject({ balance: parseEther('0.05').toString(), low: true });
    expect(wallets.filter((wallet) => wallet.low)).toHaveLength(1);
    expect(await refusal(tenant.wallets())).toMatchObject({ status: 403, code: 'scope_missing' });
    const readiness = (await (await fetch(`${api.url}/readyz`)).json()) as { warnings: string[] };
    expect(readiness.warnings).toEqual([
      expect.stringContaining(
        `wallet ${world.wallets[2]} on chain ${world.anvil.chainId}: 0.05 ETH`,
      ),
    ]);
  });
});
