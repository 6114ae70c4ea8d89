import type { RelayerActivities } from '../../activities';
import { IntentStatus } from '../../domain/intent';

export type ActivityName = keyof RelayerActivities;

/**
 * Activities faked at the createActivities seam: each call is logged, and each behaviour can be
 * replaced per test. The defaults walk the happy path and remember whether a transaction was
 * "signed", so closeIntent answers the way the real one would (needs_review once signed,
 * expired for a deadline that passed before).
 */
export type ActivityOverrides =
  Partial<RelayerActivities> | ((defaults: RelayerActivities) => Partial<RelayerActivities>);

export function fakeActivities(
  releaseQueue: string,
  overrides: ActivityOverrides = {},
): { activities: RelayerActivities; calls: ActivityName[] } {
  const calls: ActivityName[] = [];
  let signed = false;
  const defaults: RelayerActivities = {
    tryAcquirePermit: async ({ intentId }) => ({
      granted: true,
      permitId: `permit-${intentId}`,
      releaseQueue,
      waitedMs: 0,
    }),
    acquireThrottle: async ({ intentId }) => ({
      granted: true,
      permitId: `permit-${intentId}`,
      releaseQueue,
      waitedMs: 0,
    }),
    releaseThrottle: async () => true,
    allowUpgrade: async () => undefined,
    markSettling: async () => ({ status: IntentStatus.settling }),
    hold: async () => ({ status: IntentStatus.held }),
    broadcast: async () => {
      signed = true;
      return { status: IntentStatus.confirming, txHash: '0xabc', nonce: 0 };
    },
    confirm: async () => ({ state: 'confirmed', blockNumber: '7', ageMs: 1 }),
    closeIntent: async ({ reasonCode }) => ({
      status: signed
        ? IntentStatus.needsReview
        : reasonCode === 'deadline_passed'
          ? IntentStatus.expired
          : IntentStatus.failed,
      ageMs: 1,
    }),
    resolveReview: async ({ decision }) => reviewOutcome(decision.action),
    cancelUnmined: async () => ({
      status: IntentStatus.confirming,
      txHash: '0xcancel',
      blockNumber: null,
      reason: null,
    }),
    feeUnderCeiling: async () => ({ fits: true }),
    speedUp: async () => ({
      status: IntentStatus.confirming,
      txHash: '0xspeedup',
      blockNumber: null,
      reason: null,
    }),
    decideApproval: async ({ decision }) => ({
      status: decision === 'approve' ? IntentStatus.authorized : IntentStatus.rejected,
    }),
    // The lane rule does not apply unless a test says so.
    freeAbandonedLane: async () => null,
    ...batchStepsNotFaked,
    ...stepsPaymentsNeverCall,
    resumeOrphans: notFaked('resumeOrphans'),
    markFinalized: notFaked('markFinalized'),
    sweepTopUps: notFaked('sweepTopUps'),
    scanDeposits: notFaked('scanDeposits'),
    sweepDeposits: notFaked('sweepDeposits'),
    reconcileChainDeposits: notFaked('reconcileChainDeposits'),
  };
  const merged = {
    ...defaults,
    ...(typeof overrides === 'function' ? overrides(defaults) : overrides),
  };
  const logged = Object.fromEntries(
    Object.entries(merged).map(([name, fn]) => [
      name,
      (...args: unknown[]) => {
        calls.push(name as ActivityName);
        return (fn as (...a: unknown[]) => unknown)(...args);
      },
    ]),
  ) as RelayerActivities;
  return { activities: logged, calls };
}

export const notFaked = (name: string) => async (): Promise<never> => {
  throw new Error(`${name} is not faked in this test`);
};

/** The batch steps, for tests of a single intent: calling one is a mistake in the test. */
export const batchStepsNotFaked = {
  walletTurnCame: notFaked('walletTurnCame'),
  loadBatchItems: notFaked('loadBatchItems'),
  admitBatchItem: notFaked('admitBatchItem'),
  decideBatchApproval: notFaked('decideBatchApproval'),
  recordItemOutcome: notFaked('recordItemOutcome'),
  cancelBatchItems: notFaked('cancelBatchItems'),
  skipPendingItems: notFaked('skipPendingItems'),
  finishBatch: notFaked('finishBatch'),
} satisfies Partial<RelayerActivities>;

/** The status each review decision leaves an intent in, as the real activity would. */
export const statusAfterReview = {
  confirm: IntentStatus.confirmed,
  fail: IntentStatus.failed,
  retry: IntentStatus.signed,
  cancel: IntentStatus.signed,
} as const;

/** What the real activity answers for a decision, on the fakes' transaction. */
export const reviewOutcome = (action: keyof typeof statusAfterReview) => ({
  status: statusAfterReview[action],
  txHash: '0xabc',
  blockNumber: action === 'confirm' ? '7' : null,
  reason: action === 'fail' ? 'resolved as failed by op: test' : null,
});

/** Webhook delivery and a schedule's admission, for tests of payments: a payment never calls them. */
export const stepsPaymentsNeverCall = {
  pumpWebhooks: notFaked('pumpWebhooks'),
  admitScheduledPayment: notFaked('admitScheduledPayment'),
} satisfies Partial<RelayerActivities>;
