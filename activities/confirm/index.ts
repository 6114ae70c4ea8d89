import { IntentClosedError } from '../../domain/errors';
import { isNative } from '../../domain/asset';
import { judgeMined, reasonOfOutcome } from '../../domain/payment-outcome';
import { ReasonCode } from '../../domain/reason-codes';
import { statusOfOutcome } from '../../domain/outcome-status';
import { deliveredBy } from '../../chain/erc20';
import { findToken } from '../../store/assets';
import { IntentStatus, type Intent } from '../../domain/intent';
import { signingWallet } from '../../domain/signed-intent';
import { recordAudit } from '../../store/audit-log';
import type { TransactionObservation } from '../../chain/chain';
import { ageMs, type ActivityDependencies } from '../dependencies';
import type { IntentStepParameters } from '../mark-settling';
import { getIntent, getIntentForUpdate, transitionIntent } from '../../store/intents';
import { endHold } from '../../store/holds';
import {
  listAttempts,
  takesNonceBack,
  type TransactionAttempt,
} from '../../store/transaction-attempts';
import { unlessCancelled, whileHeartbeating } from '../liveness';
import { decideConfirmMove, unminedLookGapMs, type ConfirmLook } from './move';
import { pending, type ConfirmResult, type EndState } from './result';
import { pendingTransactionMoves } from './pending-moves';
import { sayIfDelayed } from './delayed';

export type { ConfirmResult } from './result';

type Mined = Extract<TransactionObservation, { state: 'mined' }>;

/**
 * One look at an intent's transactions on the chain, and the one move it calls for (decided by
 * `decideConfirmMove`, see move.ts; carried out here). Waiting for blocks happens on a
 * workflow timer between looks, not in a pool slot; a look reads the blocks the process watches
 * (chain.observe), and asks the node itself only when the decision needs it.
 */
export const confirm = (deps: ActivityDependencies) => {
  const { db, chains, clock } = deps;

  async function finish(
    intent: Intent,
    attempts: readonly TransactionAttempt[],
    attempt: TransactionAttempt,
    seen: Mined,
  ) {
    const token = isNative(intent.asset)
      ? undefined
      : await findToken(db.kysely, intent.chainId, { address: intent.asset });
    const outcome = judgeMined({
      asset: intent.asset,
      amount: intent.amount,
      cancel: takesNonceBack(attempts, attempt),
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

  const { whilePending, repairLine, outbid, resend, reassign } = pendingTransactionMoves(deps);

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
        baseFeePerGas: 0n,
        attempts: [],
      };
      for (const attempt of attempts) {
        const seen = await unlessCancelled(chain.observe(attempt.txHash, attempt.createdAt));
        const { nonce, maxFeePerGas } = attempt;
        look.attempts.push({ nonce, maxFeePerGas, signedAt: attempt.createdAt.getTime(), seen });
      }
      // The head the observations just read (shared: no read of its own).
      look.baseFeePerGas = (await unlessCancelled(chain.blocksSince())).baseFeePerGas;
      // Looks at a payment not mined slow down as it ages (its history stays short). Its age runs
      // from its latest transaction that is not a fee bump: a cancel or a re-sign starts anew.
      const unmined = async (result: Promise<ConfirmResult> | ConfirmResult) => {
        const looked = await result;
        if (looked.state !== 'pending') return looked;
        const since = [...attempts].reverse().find((a) => a.cause !== 'fee_bump') ?? latest;
        const sinceSignedMs = look.now - since.createdAt.getTime();
        const retryAfterMs = Math.max(
          looked.retryAfterMs,
          unminedLookGapMs(sinceSignedMs, chain.nextLookInMs()),
        );
        const delayed = await sayIfDelayed(deps, chain, intent, attempts, retryAfterMs);
        return { ...looked, retryAfterMs, ...(delayed && { delayed }) };
      };
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
            return finish(intent, attempts, attempts[move.attempt]!, seen);
          }
          case 'note-receipt': {
            const attempt = attempts[move.attempt]!;
            await noteReceipt(intent, attempt, look.attempts[move.attempt]!.seen as Mined);
            return pending(chain, move.confirmations, undefined, attempt.txHash);
          }
          case 'wait':
            return unmined(pending(chain));
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
          case 'repair-line':
            return unmined(repairLine(chain, intent, attempts));
          case 'unstick':
            return unmined(whilePending(chain, intent, attempts));
          case 'outbid':
            return unmined(outbid(chain, intent, attempts));
          case 'resend':
            return unmined(resend(chain, intent, attempts));
          case 'reassign':
            return unmined(reassign(chain, intent, attempts));
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
