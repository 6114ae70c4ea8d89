import {
  IntentClosedError,
  NonceConflictError,
  SendPacedError,
  UnknownWalletError,
} from '../domain/errors';
import { IntentStatus, signedTransactionOf, type Intent } from '../domain/intent';
import type { Hex } from './chain/chain';
import type { ActivityDependencies } from './dependencies';
import type { IntentStepParameters } from './mark-settling';
import { getIntent, getIntentForUpdate, transitionIntent } from './store/intent-store';
import { unlessCancelled, whileHeartbeating } from './liveness';
import { allocateNonce } from './store/wallet-nonces';

export interface BroadcastResult {
  status: IntentStatus;
  txHash: Hex;
  nonce: number;
}

/**
 * held → signed → confirming. Signs first and persists the raw transaction, its hash and its nonce
 * in one transaction, then sends the bytes. Every retry sends the *same* bytes, so whatever
 * happened to an earlier attempt, at most one transaction can land for the intent.
 */
export const broadcast = (deps: ActivityDependencies) => {
  const { db, chains, clock, throttle } = deps;

  async function sign(intent: Intent): Promise<Intent> {
    const chain = chains.get(intent.chainId);
    // Fees and gas need RPC calls, so they are fetched before any lock is taken.
    const plan = await unlessCancelled(
      chain.planTransfer({ from: intent.from, to: intent.to, value: intent.amount }),
    );
    return db.transaction(async (trx) => {
      const current = await getIntentForUpdate(db, trx, intent.id);
      if (current.status !== IntentStatus.held) return current;
      const wallet = { chainId: intent.chainId, address: intent.from };
      const nonce = await allocateNonce(db, trx, wallet);
      if (nonce === undefined) throw new UnknownWalletError(intent.chainId, intent.from);
      const signed = await chain.signTransfer(plan, nonce);
      return transitionIntent(
        trx,
        current,
        { status: IntentStatus.signed, nonce, txHash: signed.txHash, rawTx: signed.rawTx },
        clock.now(),
      );
    });
  }

  return ({ intentId }: IntentStepParameters): Promise<BroadcastResult> =>
    whileHeartbeating(async () => {
      let intent = await getIntent(db.kysely, intentId);
      if (intent.status === IntentStatus.held) intent = await sign(intent);
      const signed = signedTransactionOf(intent);
      if (!signed || !mayBeSent(intent.status)) {
        throw new IntentClosedError(intentId, intent.status);
      }
      const { txHash, nonce } = signed;
      if (intent.status === IntentStatus.confirmed) return { status: intent.status, txHash, nonce };
      const waitMs = await throttle.reserveSend();
      if (waitMs > 0) throw new SendPacedError(waitMs);
      // Abandoning the send (drain timeout) is safe: the retry sends these same persisted bytes.
      const outcome = await unlessCancelled(chains.get(intent.chainId).broadcast(signed));
      if (outcome === 'nonce-taken') throw new NonceConflictError(intentId, nonce, txHash);
      if (intent.status === IntentStatus.signed) {
        intent = await transitionIntent(
          db.kysely,
          intent,
          { status: IntentStatus.confirming },
          clock.now(),
        );
      }
      return { status: intent.status, txHash, nonce };
    });
};

/** Statuses in which (re-)sending the signed bytes is still the right thing to do. */
const mayBeSent = (status: IntentStatus): boolean =>
  status === IntentStatus.signed ||
  status === IntentStatus.confirming ||
  status === IntentStatus.confirmed;
