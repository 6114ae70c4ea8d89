import { FeeAboveCapError, IntentClosedError } from '../domain/errors';
import { isNative } from '../domain/asset';
import { judgeMined, reasonOfOutcome, type MinedOutcome } from '../domain/payment-outcome';
import { ReasonCode } from '../domain/reason-codes';
import { statusOfOutcome } from '../domain/outcome-status';
import { deliveredBy } from '../chain/erc20';
import { findToken } from '../store/assets';
import { IntentStatus, signedTransactionOf, type Intent, signingWallet } from '../domain/intent';
import { paymentOf } from '../domain/intent-payment';
import { recordAudit } from '../store/audit-log';
import type { Chain, TransactionObservation } from '../chain/chain';
import { ageMs, type ActivityDependencies } from './dependencies';
import type { IntentStepParameters } from './mark-settling';
import { getIntent, getIntentForUpdate, transitionIntent } from '../store/intents';
import { endHold } from '../store/holds';
import { listAttempts, planOf, type TransactionAttempt } from '../store/transaction-attempts';
import { unlessCancelled, whileHeartbeating } from './liveness';
import { decideConfirmMove, type ConfirmLook } from './confirm-move';
import { checkNonceGap } from './transactions/fill-nonce-gap';
import { sendSigned } from './transactions/send-signed';
import { signAttempt } from './transactions/sign-attempt';

/**
 * How an intent's confirming ended (domain/payment-outcome.ts): paid, reverted (mined, nothing
 * moved), cancelled (a zero-value transfer at its nonce was mined deep enough), a token that
 * moved nothing, or a token that delivered other than the amount (the intent waits in review).
 */
type EndState = MinedOutcome['state'];

/** `ageMs`: from submit to now, for the end-to-end latency metric. */
export type ConfirmResult =
  | {
      state: EndState;
      blockNumber: string;
      ageMs: number;
      txHash?: string;
      /** Why it did not end paid in full (absent in results recorded before tokens). */
      reason?: string | null;
      /** The reason's code (absent in results recorded before codes). */
      reasonCode?: ReasonCode | null;
      /** What it paid in, for the metrics: `native` or the token's address. */
      asset?: string;
    }
  | {
      state: 'pending';
      confirmations: number;
      retryAfterMs: number;
      /** The intent's current transaction after this look (a replacement may have taken over). */
      txHash?: string;
    };

type Mined = Extract<TransactionObservation, { state: 'mined' }>;

/**
 * One look at an intent's transactions on the chain, and the one move it calls for (decided by
 * `decideConfirmMove`, see confirm-move.ts; carried out here). Waiting for blocks happens on a
 * workflow timer between looks, not in a pool slot; a look reads the blocks the process watches
 * (chain.observe), and asks the node itself only when the decision needs it.
 */
export const confirm = (deps: ActivityDependencies) => {
  const { db, chains, clock, throttle } = deps;

  const pending = (
    chain: Chain,
    confirmations = 0,
    retryAfterMs = chain.nextLookInMs(),
    txHash?: string,
  ): ConfirmResult => ({
    state: 'pending',
    confirmations,
    retryAfterMs: Math.max(retryAfterMs, chain.nextLookInMs()),
    ...(txHash && { txHash }),
  });

  async function finish(intent: Intent, attempt: TransactionAttempt, seen: Mined) {
    const token = isNative(intent.asset)
      ? undefined
      : await findToken(db.kysely, intent.chainId, { address: intent.asset });
    const outcome = judgeMined({
      asset: intent.asset,
      amount: intent.amount,
      cancel: attempt.cause === 'cancel',
      succeeded: seen.succeeded,
      delivered: isNative(intent.asset)
        ? 0n
        : deliveredBy(seen.transfers, intent.asset, signingWallet(intent), intent.to),
      feeOnTransfer: token?.feeOnTransfer ?? false,
    });
    const reason = reasonOfOutcome(outcome, intent.amount);
    const status = statusOfOutcome(outcome.state);
    return db.transaction(async (trx) => {
      const now = clock.now();
      const current = await getIntentForUpdate(db, trx, intent.id);
      if (current.status === IntentStatus.confirming) {
        await transitionIntent(
          trx,
          current,
          {
            status,
            nonce: attempt.nonce,
            txHash: attempt.txHash,
            rawTx: attempt.rawTx,
            blockNumber: seen.blockNumber,
            reason,
            feePaid: seen.gasPaid,
            ...('delivered' in outcome &&
              outcome.delivered !== undefined && { deliveredAmount: outcome.delivered }),
          },
          now,
        );
        // A mismatch keeps its hold for the person who decides; the gas is posted then.
        if (status !== IntentStatus.needsReview) {
          const paid = status === IntentStatus.confirmed;
          await endHold(db, trx, intent.id, paid ? 'captured' : 'released', now, seen.gasPaid);
        }
      }
      return {
        state: outcome.state,
        blockNumber: seen.blockNumber.toString(),
        ageMs: ageMs(current, clock),
        txHash: attempt.txHash,
        reason: reason?.text ?? null,
        reasonCode: reason?.code ?? null,
        asset: intent.asset,
      };
    });
  }

  /** Remembers the block a receipt was seen in (or that it vanished), to notice reorgs. */
  async function noteReceipt(
    intent: Intent,
    attempt: TransactionAttempt | undefined,
    seen?: Mined,
  ) {
    const blockNumber = seen?.blockNumber ?? null;
    if (intent.blockNumber === blockNumber && (!attempt || attempt.txHash === intent.txHash))
      return;
    await db.transaction(async (trx) => {
      const now = clock.now();
      const current = await getIntentForUpdate(db, trx, intent.id);
      if (current.version !== intent.version) return;
      if (!seen) {
        await recordAudit(
          trx,
          {
            intentId: intent.id,
            action: 'receipt_reorged',
            actor: 'relayer',
            detail: { txHash: intent.txHash, blockNumber: String(intent.blockNumber) },
          },
          now,
        );
      }
      await transitionIntent(
        trx,
        current,
        {
          status: current.status,
          blockNumber,
          ...(attempt && { nonce: attempt.nonce, txHash: attempt.txHash, rawTx: attempt.rawTx }),
        },
        now,
      );
    });
  }

  /** In the node's pool, not mined: once stuck, fill the gap it waits behind or outbid it. */
  async function whilePending(chain: Chain, intent: Intent, latest: TransactionAttempt) {
    if (clock.now().getTime() - latest.createdAt.getTime() < chain.stuckAfterMs) {
      return pending(chain);
    }
    const gap = await unlessCancelled(
      checkNonceGap(deps, chain, { ...intent, nonce: latest.nonce }),
    );
    if (gap.gap) {
      if (gap.fill) await sendSigned(chain, throttle, gap.fill);
      return pending(chain);
    }
    return replace(chain, intent, latest, `not mined after ${chain.stuckAfterMs} ms`);
  }

  /** Sends the intent's current bytes again; a refusal that needs a better bid gets one now. */
  async function resend(chain: Chain, intent: Intent, latest: TransactionAttempt) {
    const outcome = await sendSigned(chain, throttle, latest);
    if (typeof outcome === 'object') return pending(chain, 0, outcome.pacedMs);
    if (outcome === 'replace-needed')
      return replace(chain, intent, latest, 'refused as underpriced');
    // Some nodes do not show a queued transaction by hash, but do say they have it.
    if (outcome === 'already-known') return whilePending(chain, intent, latest);
    if (outcome === 'sent') {
      await db.transaction((trx) =>
        recordAudit(
          trx,
          {
            intentId: intent.id,
            action: 'resent',
            actor: 'relayer',
            detail: { txHash: latest.txHash, nonce: latest.nonce },
          },
          clock.now(),
        ),
      );
    }
    return pending(chain);
  }

  async function replace(chain: Chain, intent: Intent, latest: TransactionAttempt, why: string) {
    try {
      const plan = await unlessCancelled(chain.planReplacement(planOf(intent, latest)));
      const replaced = await signAttempt(deps, intent, plan, { kind: 'same' }, { why });
      const signed = signedTransactionOf(replaced);
      if (signed) await sendSigned(chain, throttle, signed);
      return pending(chain, 0, undefined, signed?.txHash);
    } catch (error) {
      // At the caps the stuck attempt keeps its chance; the confirm timeout brings a person in.
      if (!(error instanceof FeeAboveCapError)) throw error;
    }
    return pending(chain);
  }

  /**
   * Signs the transfer again at a fresh nonce: the old one was used by a stranger for good. Not
   * after an operator's cancel: nothing is signed again, the confirm timeout brings the operator
   * back, who can then resolve it as failed (the nonce is used).
   */
  async function reassign(chain: Chain, intent: Intent, latest: TransactionAttempt) {
    if (latest.cause === 'cancel') return pending(chain);
    const plan = await unlessCancelled(
      chain.planTransfer(paymentOf(intent, signingWallet(intent))),
    );
    const chainPendingNonce = await chain.pendingNonce(signingWallet(intent));
    const reassigned = await signAttempt(
      deps,
      intent,
      plan,
      { kind: 'fresh', chainPendingNonce },
      { why: `nonce ${latest.nonce} was used by another transaction` },
    );
    const signed = signedTransactionOf(reassigned);
    if (signed) await sendSigned(chain, throttle, signed);
    return pending(chain, 0, undefined, signed?.txHash);
  }

  return ({ intentId }: IntentStepParameters): Promise<ConfirmResult> =>
    whileHeartbeating(async () => {
      const intent = await getIntent(db.kysely, intentId);
      if (endedByLook.has(intent.status) && intent.blockNumber !== null) {
        // Ended by an earlier try: the state its status and reason recorded.
        return {
          state: endStateOf(intent),
          blockNumber: intent.blockNumber.toString(),
          ageMs: ageMs(intent, clock),
          ...(intent.txHash && { txHash: intent.txHash }),
          reason: intent.reason,
          reasonCode: intent.reasonCode,
          asset: intent.asset,
        };
      }
      const attempts = await listAttempts(db.kysely, intentId);
      const latest = attempts.at(-1);
      if (intent.status !== IntentStatus.confirming || !latest) {
        throw new IntentClosedError(intentId, intent.status);
      }
      const chain = chains.get(intent.chainId);

      const look: ConfirmLook = {
        now: clock.now().getTime(),
        confirmations: chain.confirmations,
        stuckAfterMs: chain.stuckAfterMs,
        askNodeAfterMs: chain.askNodeAfterMs,
        notedBlock: intent.blockNumber,
        attempts: [],
      };
      for (const attempt of attempts) {
        const seen = await unlessCancelled(chain.observe(attempt.txHash, attempt.createdAt));
        look.attempts.push({ nonce: attempt.nonce, signedAt: attempt.createdAt.getTime(), seen });
      }
      let reorgNoted = false;
      for (;;) {
        const { move, reorged } = decideConfirmMove(look);
        if (reorged && !reorgNoted) {
          await noteReceipt(intent, undefined);
          reorgNoted = true;
        }
        switch (move.move) {
          case 'finish': {
            const seen = look.attempts[move.attempt]!.seen as Mined;
            return finish(intent, attempts[move.attempt]!, seen);
          }
          case 'note-receipt': {
            const attempt = attempts[move.attempt]!;
            await noteReceipt(intent, attempt, look.attempts[move.attempt]!.seen as Mined);
            return pending(chain, move.confirmations, undefined, attempt.txHash);
          }
          case 'wait':
            return pending(chain);
          case 'ask-node':
            look.attempts.at(-1)!.seen = await unlessCancelled(chain.observeAtNode(latest.txHash));
            continue;
          case 'read-nonces':
            look.nonces = {
              mined: await chain.minedNonce(signingWallet(intent)),
              settled: await chain.settledNonce(signingWallet(intent)),
            };
            continue;
          case 'recheck-attempts':
            for (const [index, attempt] of attempts.entries()) {
              look.attempts[index]!.seen = await unlessCancelled(
                chain.observeAtNode(attempt.txHash),
              );
            }
            look.rechecked = true;
            continue;
          case 'unstick':
            return whilePending(chain, intent, latest);
          case 'resend':
            return resend(chain, intent, latest);
          case 'reassign':
            return reassign(chain, intent, latest);
        }
      }
    });
};

/** Statuses a look that found a transaction mined deep enough leaves an intent in. */
const endedByLook: ReadonlySet<IntentStatus> = new Set([
  IntentStatus.confirmed,
  IntentStatus.failed,
  IntentStatus.needsReview,
]);

/** The end state an intent ended by a look records in its status and reason. */
function endStateOf(intent: Intent): EndState {
  if (intent.status === IntentStatus.confirmed) return 'confirmed';
  if (intent.status === IntentStatus.needsReview) return 'mismatch';
  if (intent.reasonCode === ReasonCode.cancelledOnChain) return 'cancelled';
  if (intent.reasonCode === ReasonCode.tokenMovedNothing) return 'moved-nothing';
  return 'reverted';
}
