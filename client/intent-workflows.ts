import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  type Client,
} from '@temporalio/client';
import { isDepositSweep, isTopUp } from '../domain/custody';
import { IntentStatus, type Intent } from '../domain/intent';
import type { IntentTimings } from '../domain/intent-timings';
import type { WalletTurn } from '../domain/wallet-turn';
import { labelsOf } from '../domain/intent-labels';
import { IntentPriority, temporalPriorityOf } from '../domain/intent-priority';
import type {
  ReviewOutcome,
  ReviewRequest,
  SpeedUpRequest,
  UnminedCancelRequest,
} from '../domain/review';
import { paymentIntentWorkflowId } from '../domain/workflow-ids';
import type { paymentIntentV2 } from '../workflows';
import { walletTurnSignal } from '../workflows/payment-batch/signals';
import {
  intentProgressQuery,
  type PaymentIntentProgress,
  resolveReviewUpdate,
  cancelUnminedUpdate,
  speedUpUpdate,
  decideApprovalUpdate,
  intentResumedSignal,
  transactionSeenSignal,
} from '../workflows/payment-intent/messages';
import type { ApprovalOutcome, ApprovalRequest } from '../domain/approval';
import { intentMemo, intentSearchAttributes } from '../workflows/search-attributes';

/**
 * Starts the workflow that takes an intent to its end. A top-up or a deposit sweep
 * (domain/custody.ts) runs the payment's own workflow under the type `walletTopUpV2` or
 * `depositSweepV2`, by which operators find them in the Web UI (workflows/index.ts exports it
 * under each name; older types: docs/workflow-versions.md).
 * Starting it again is harmless: a running one is joined and a finished one is never re-run, so at
 * most one workflow ever works on an intent under `workflowId`. A retry of an intent whose
 * workflow has ended passes a new id and `waitInReview: false` (see service/review-intent.ts).
 */
export async function startIntentWorkflow(
  client: Client,
  taskQueue: string,
  intent: Intent,
  options: {
    workflowId?: string;
    waitInReview?: boolean;
    /**
     * Ask the server to hand the workflow's first task straight back to a worker of this
     * client's own connection (a process that runs the workers too), skipping a round of matching.
     */
    eager?: boolean;
    /** Recorded in the workflow's input: the intent keeps them through restarts and deploys. */
    timings?: IntentTimings;
    /** Its tenant's weight among tenants of one priority (store/tenants.ts); unset: 1. */
    fairnessWeight?: number;
  } = {},
): Promise<string> {
  const workflowId = options.workflowId ?? paymentIntentWorkflowId(intent.id);
  const labels = labelsOf(intent);
  try {
    await client.workflow.start<typeof paymentIntentV2>(workflowTypeOf(intent), {
      taskQueue,
      workflowId,
      args: [
        {
          intentId: intent.id,
          ...options.timings,
          ...(intent.status === IntentStatus.awaitingApproval && { awaitingApproval: true }),
          ...(options.waitInReview === false && { waitInReview: false }),
          ...(intent.validUntil && { validUntil: intent.validUntil.getTime() }),
          ...(intent.notBefore && { notBefore: intent.notBefore.getTime() }),
          ...(intent.maxFeePerGas && { maxFeePerGas: intent.maxFeePerGas.toString() }),
        },
      ],
      priority: temporalPriorityOf(intent, options.fairnessWeight),
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: intentSearchAttributes(labels),
      memo: intentMemo(labels),
      // A bulk one's first task never skips the matcher's order (workflows/eager-dispatch.ts).
      ...(options.eager && intent.priority !== IntentPriority.bulk && { requestEagerStart: true }),
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  return workflowId;
}

/** What a script may ask of an intent's workflow, by intent id. */
export function intentWorkflow(client: Client, intentId: string) {
  const handle = client.workflow.getHandle<typeof paymentIntentV2>(
    paymentIntentWorkflowId(intentId),
  );
  return {
    handle,
    /** An operator's decision, applied by the workflow waiting in review (refusals thrown). */
    resolveReview: (request: ReviewRequest): Promise<ReviewOutcome> =>
      handle.executeUpdate(resolveReviewUpdate, { args: [request] }),
    /** A cancel of the payment sent but not mined: its nonce taken back (refusals thrown). */
    cancelUnmined: (request: UnminedCancelRequest): Promise<ReviewOutcome> =>
      handle.executeUpdate(cancelUnminedUpdate, { args: [request] }),
    /** A speed-up of the payment sent but not mined: a higher bid at its nonce (refusals thrown) */
    speedUp: (request: SpeedUpRequest): Promise<ReviewOutcome> =>
      handle.executeUpdate(speedUpUpdate, { args: [request] }),
    /** A second key's decision on an intent awaiting approval (refusals thrown). */
    decideApproval: (request: ApprovalRequest): Promise<ApprovalOutcome<string>> =>
      handle.executeUpdate(decideApprovalUpdate, { args: [request] }),
    progress: (): Promise<PaymentIntentProgress> => handle.query(intentProgressQuery),
    /** Asks the workflow to stop; it closes the intent as its state allows. */
    cancel: () => handle.cancel(),
    /** Its pause was resumed: it asks for its permit now (service/pauses.ts). */
    tellResumed: () => handle.signal(intentResumedSignal),
    /**
     * A block holds or outbids its transaction: look now. A workflow that ended (or was retried
     * under another id) is not waiting for it: no error.
     */
    tellTransactionSeen: () =>
      handle.signal(transactionSeenSignal).catch((error: unknown) => {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
      }),
    /** A batch item: how far its wallet's turn lets it go now. */
    tellWalletTurn: (turn: WalletTurn) => handle.signal(walletTurnSignal, turn),
  };
}

const workflowTypeOf = (intent: Intent): string =>
  isTopUp(intent) ? 'walletTopUpV2' : isDepositSweep(intent) ? 'depositSweepV2' : 'paymentIntentV2';
