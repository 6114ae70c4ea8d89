import { ApplicationFailure } from '@temporalio/common';
import { randomUUID } from 'node:crypto';
import type { RelayerActivities } from '../../activities';
import type { BatchItemOutcome, BatchStatus } from '../../domain/batch';
import { ErrorName } from '../../domain/error-catalogue';
import { InsufficientBalanceError, IntentClosedError } from '../../domain/errors';
import { IntentStatus, notYetSignedStatuses, terminalStatuses } from '../../domain/intent';
import { preparedAhead, walletTurnAfter, type WalletTurn } from '../../domain/wallet-turn';
import type { Reason } from '../../domain/reason-codes';
import {
  notFaked,
  reviewOutcome,
  statusAfterReview,
  stepsPaymentsNeverCall,
} from './fake-activities';

export interface FakeItem {
  wallet: string;
  /** How the item's payment goes: the hold fails, or admission refuses it. */
  fails?: 'hold' | 'admission';
  /** How long the first look at its receipt says "pending" for (a workflow timer). */
  confirmAfterMs?: number;
  /** Signed, then its confirmation fails for good: the item waits in needs_review. */
  endsInReview?: boolean;
  /** Permit refusals before it gets one (each a timer of the batch's `permitRetryMs`). */
  permitRefusals?: number;
}

/**
 * A batch and its intents kept in memory behind the real activity names, so the batch workflow
 * and its paymentIntent children run for real on a Temporal server. It records what a
 * database and a chain would show: each item's state and outcome, the order items were signed in
 * per wallet, and the most items active at once.
 */
export function fakeBatch(
  items: FakeItem[],
  releaseQueue: string,
  permitRetryMs: number,
  /** Tells an item's workflow its wallet's turn, as the real steps do. */
  tellWalletTurn: (intentId: string, turn: WalletTurn) => Promise<void>,
) {
  const status = new Map<string, IntentStatus>();
  const state = items.map(() => ({ state: 'pending', outcome: null as BatchItemOutcome | null }));
  const signedOrder = new Map<string, number[]>();
  const ended: number[] = [];
  const refusals = new Map<string, number>();
  const confirmLooks = new Map<string, number>();
  let active = 0;
  let maxActive = 0;
  let finished: { status: string; cause: Reason | string | null } | undefined;
  /** A batch started awaiting approval: where the decision left it, and each decision asked. */
  let batchStatus: BatchStatus = 'awaiting_approval';
  const decisions: string[] = [];
  // Intent ids (and so child workflow ids) unique to this batch, as real ones are.
  const prefix = `pi_${randomUUID().slice(0, 8)}_`;
  const intentIdOf = (index: number) => `${prefix}${index}`;
  const indexOf = (intentId: string) => Number(intentId.slice(prefix.length));
  const sameWallet = (index: number) => (other: number) =>
    items[other]!.wallet === items[index]!.wallet;
  const signed = (index: number) => signedOrder.get(items[index]!.wallet)?.includes(index) ?? false;
  /** Neither signed nor ended unsigned (an item not admitted yet counts too). */
  const mayStillSign = (index: number) => {
    const current = status.get(intentIdOf(index));
    return state[index]!.state === 'pending' || (!!current && notYetSignedStatuses.has(current));
  };
  /** The rule of store/wallet-turns.ts, over what this fake knows. */
  const walletTurnOf = (index: number): WalletTurn =>
    walletTurnAfter(
      items
        .map((_, earlier) => earlier)
        .filter((earlier) => earlier < index && sameWallet(index)(earlier))
        .filter((earlier) => signed(earlier) || mayStillSign(earlier))
        .reverse()
        .slice(0, preparedAhead)
        .map((earlier) => ({
          signed: signed(earlier),
          status: status.get(intentIdOf(earlier)) ?? null,
        })),
    );
  const passWalletTurn = async (intentId: string) => {
    const index = indexOf(intentId);
    const next = items
      .map((_, later) => later)
      .filter(
        (later) =>
          later > index &&
          sameWallet(index)(later) &&
          state[later]!.state !== 'pending' &&
          mayStillSign(later),
      )
      .slice(0, preparedAhead);
    for (const later of next) {
      const turn = walletTurnOf(later);
      if (turn !== 'wait') await tellWalletTurn(intentIdOf(later), turn).catch(() => undefined);
    }
  };

  const activities: RelayerActivities = {
    tryAcquirePermit: async ({ intentId }) => {
      const seen = refusals.get(intentId) ?? 0;
      if (seen < (items[indexOf(intentId)]!.permitRefusals ?? 0)) {
        refusals.set(intentId, seen + 1);
        return { granted: false, reason: 'busy', retryAfterMs: permitRetryMs };
      }
      return { granted: true, permitId: `permit-${intentId}`, releaseQueue, waitedMs: 0 };
    },
    acquireThrottle: notFaked('acquireThrottle'),
    cancelUnmined: notFaked('cancelUnmined'),
    speedUp: notFaked('speedUp'),
    feeUnderCeiling: notFaked('feeUnderCeiling'),
    allowUpgrade: notFaked('allowUpgrade'),
    releaseThrottle: async () => true,
    markSettling: async ({ intentId }) => {
      const current = status.get(intentId)!;
      if (current === IntentStatus.cancelled) throw new IntentClosedError(intentId, current);
      status.set(intentId, IntentStatus.settling);
      return { status: IntentStatus.settling };
    },
    hold: async ({ intentId, batchItem }) => {
      const current = status.get(intentId)!;
      if (current === IntentStatus.cancelled) throw new IntentClosedError(intentId, current);
      if (items[indexOf(intentId)]!.fails === 'hold') {
        throw new InsufficientBalanceError('acme', 0n, 1n);
      }
      status.set(intentId, IntentStatus.held);
      if (batchItem) await passWalletTurn(intentId);
      return { status: IntentStatus.held };
    },
    broadcast: async ({ intentId, batchItem }) => {
      const current = status.get(intentId)!;
      if (current === IntentStatus.cancelled) throw new IntentClosedError(intentId, current);
      const index = indexOf(intentId);
      const wallet = items[index]!.wallet;
      signedOrder.set(wallet, [...(signedOrder.get(wallet) ?? []), index]);
      status.set(intentId, IntentStatus.confirming);
      if (batchItem) await passWalletTurn(intentId);
      return { status: IntentStatus.confirming, txHash: `0x${index}`, nonce: index };
    },
    confirm: async ({ intentId }) => {
      const looks = (confirmLooks.get(intentId) ?? 0) + 1;
      confirmLooks.set(intentId, looks);
      const item = items[indexOf(intentId)]!;
      if (item.endsInReview) {
        throw ApplicationFailure.nonRetryable('the receipt never came', 'ConfirmationTimeout');
      }
      const waitMs = item.confirmAfterMs ?? 0;
      if (looks === 1 && waitMs > 0) {
        return { state: 'pending', confirmations: 0, retryAfterMs: waitMs };
      }
      status.set(intentId, IntentStatus.confirmed);
      return { state: 'confirmed', blockNumber: '1', ageMs: 1 };
    },
    closeIntent: async ({ intentId, batchItem }) => {
      const current = status.get(intentId)!;
      if (!terminalStatuses.has(current)) {
        status.set(
          intentId,
          notYetSignedStatuses.has(current) ? IntentStatus.failed : IntentStatus.needsReview,
        );
      }
      if (batchItem) await passWalletTurn(intentId);
      return { status: status.get(intentId)!, ageMs: 1 };
    },
    walletTurnCame: async ({ index }) => walletTurnOf(index),
    resolveReview: async ({ intentId, decision }) => {
      status.set(intentId, statusAfterReview[decision.action]);
      return reviewOutcome(decision.action);
    },
    freeAbandonedLane: async () => null,
    loadBatchItems: async ({ fromIndex, count }) =>
      items
        .map((item, index) => ({ index, wallet: item.wallet }))
        .slice(fromIndex, fromIndex + count),
    admitBatchItem: async ({ index }) => {
      if (items[index]!.fails === 'admission') {
        state[index] = { state: 'rejected', outcome: 'rejected' };
        return { kind: 'rejected', code: 'insufficient_balance', message: 'no money' };
      }
      const intentId = intentIdOf(index);
      if (!status.has(intentId)) {
        status.set(intentId, IntentStatus.authorized);
        state[index] = { state: 'started', outcome: null };
        maxActive = Math.max(maxActive, ++active);
      }
      return { kind: 'admitted', intentId, tenantId: 'acme' };
    },
    recordItemOutcome: async ({ index }) => {
      const current = status.get(intentIdOf(index))!;
      if (!terminalStatuses.has(current)) return null;
      if (state[index]!.state === 'started') {
        state[index] = { state: 'finished', outcome: current };
        active--;
        ended.push(index);
      }
      return current;
    },
    cancelBatchItems: async ({ intentIds }) =>
      intentIds.filter((intentId) => {
        if (!notYetSignedStatuses.has(status.get(intentId)!)) return false;
        status.set(intentId, IntentStatus.cancelled);
        return true;
      }),
    skipPendingItems: async () => {
      let skipped = 0;
      state.forEach((item, index) => {
        if (item.state === 'pending') {
          state[index] = { state: 'skipped', outcome: 'skipped' };
          skipped++;
        }
      });
      return skipped;
    },
    resumeOrphans: notFaked('resumeOrphans'),
    markFinalized: notFaked('markFinalized'),
    sweepTopUps: notFaked('sweepTopUps'),
    scanDeposits: notFaked('scanDeposits'),
    sweepDeposits: notFaked('sweepDeposits'),
    reconcileChainDeposits: notFaked('reconcileChainDeposits'),
    decideApproval: notFaked('decideApproval'),
    decideBatchApproval: async (decision) => {
      decisions.push(decision.decision);
      if (batchStatus !== 'awaiting_approval') return { status: batchStatus };
      if (decision.decision === 'approve' && decision.keyId === batchSubmitterKey) {
        throw ApplicationFailure.create({
          type: ErrorName.approvalRefused,
          message: `key ${decision.keyId} submitted the batch`,
          nonRetryable: true,
        });
      }
      batchStatus = decision.decision === 'approve' ? 'running' : 'rejected';
      return { status: batchStatus };
    },
    ...stepsPaymentsNeverCall,
    finishBatch: async ({ status: batchStatus, cause }) => {
      finished = { status: batchStatus, cause };
    },
  };

  return {
    activities,
    /** results[i]: how item i ended, as the results table would say. */
    results: () => state.map((item) => item.outcome),
    intentStatus: (index: number) => status.get(intentIdOf(index)),
    intentIdOf,
    signedOrder: (wallet: string) => signedOrder.get(wallet) ?? [],
    endOrder: () => [...ended],
    maxActive: () => maxActive,
    finished: () => finished,
    /** The decisions asked of a batch awaiting approval, refused ones included. */
    decisions: () => [...decisions],
  };
}

/** The key that submitted a fake batch awaiting approval: it cannot approve it. */
export const batchSubmitterKey = 'key-submitter';
