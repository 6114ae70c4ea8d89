import { IntentClosedError, NonceConflictError } from '../domain/errors';
import { IntentStatus, revertedReason, signedTransactionOf } from '../domain/intent';
import { ageMs, type ActivityDependencies } from './dependencies';
import type { IntentStepParameters } from './mark-settling';
import { getIntent, getIntentForUpdate, transitionIntent } from './store/intent-store';
import { endHold } from './store/ledger';
import { unlessCancelled, whileHeartbeating } from './liveness';

/** `ageMs`: from submit to now, for the end-to-end latency metric. */
export type ConfirmResult =
  | { state: 'confirmed'; blockNumber: string; ageMs: number }
  | { state: 'reverted'; blockNumber: string; ageMs: number }
  | { state: 'pending'; confirmations: number; retryAfterMs: number };

/**
 * confirming → confirmed (hold captured) or failed (mined but reverted: no value moved, hold
 * released). Looks once and returns: waiting for blocks happens on a workflow timer, not in a
 * pool slot. A transaction the node no longer knows is re-sent from the persisted bytes.
 */
export const confirm =
  ({ db, chains, clock, throttle }: ActivityDependencies) =>
  ({ intentId }: IntentStepParameters): Promise<ConfirmResult> =>
    whileHeartbeating(async () => {
      const intent = await getIntent(db.kysely, intentId);
      if (
        (intent.status === IntentStatus.confirmed || intent.status === IntentStatus.failed) &&
        intent.blockNumber !== null
      ) {
        const state = intent.status === IntentStatus.confirmed ? 'confirmed' : 'reverted';
        return { state, blockNumber: intent.blockNumber.toString(), ageMs: ageMs(intent, clock) };
      }
      const signed = signedTransactionOf(intent);
      if (intent.status !== IntentStatus.confirming || !signed) {
        throw new IntentClosedError(intentId, intent.status);
      }
      const chain = chains.get(intent.chainId);
      const seen = await unlessCancelled(chain.observe(signed.txHash));
      if (seen.state === 'unknown') {
        // Dropped by the node: send the persisted bytes again, at the RPC pace.
        const waitMs = await throttle.reserveSend();
        if (waitMs > 0) {
          return {
            state: 'pending',
            confirmations: 0,
            retryAfterMs: Math.max(waitMs, chain.pollIntervalMs),
          };
        }
        if ((await unlessCancelled(chain.broadcast(signed))) === 'nonce-taken') {
          throw new NonceConflictError(intentId, signed.nonce, signed.txHash);
        }
      }
      if (seen.state !== 'mined' || seen.confirmations < chain.confirmations) {
        const confirmations = seen.state === 'mined' ? seen.confirmations : 0;
        return { state: 'pending', confirmations, retryAfterMs: chain.pollIntervalMs };
      }
      return db.transaction(async (trx) => {
        const now = clock.now();
        const current = await getIntentForUpdate(db, trx, intentId);
        const status = seen.succeeded ? IntentStatus.confirmed : IntentStatus.failed;
        if (current.status === IntentStatus.confirming) {
          await transitionIntent(
            trx,
            current,
            {
              status,
              blockNumber: seen.blockNumber,
              reason: seen.succeeded ? null : revertedReason,
            },
            now,
          );
          await endHold(db, trx, intentId, seen.succeeded ? 'captured' : 'released', now);
        }
        return {
          state: seen.succeeded ? 'confirmed' : 'reverted',
          blockNumber: seen.blockNumber.toString(),
          ageMs: ageMs(current, clock),
        };
      });
    });
