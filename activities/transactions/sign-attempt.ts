import { UnknownWalletError } from '../../domain/errors';
import { IntentStatus, type Intent } from '../../domain/intent';
import { recordAudit } from '../../store/audit-log';
import type { TransferPlan } from '../../domain/transfer';
import type { ActivityDependencies } from '../dependencies';
import { getIntentForUpdate, transitionIntent } from '../../store/intents';
import type { AttemptCause } from '../../store/schema';
import { insertAttempt, listAttempts } from '../../store/transaction-attempts';
import { allocateNonce } from '../../store/wallet-nonces';

export type NonceChoice =
  /** The wallet's next nonce (the first attempt). */
  | { kind: 'next' }
  /** The same nonce as the current attempt: a replacement, only one of them can be mined. */
  | { kind: 'same' }
  /** A fresh one, at least the chain's pending nonce: the old one was used by a stranger. */
  | { kind: 'fresh'; chainPendingNonce: number };

const causeOf: Record<NonceChoice['kind'], AttemptCause> = {
  next: 'first',
  same: 'fee_bump',
  fresh: 'nonce_reassigned',
};

/**
 * Signs a new attempt for `intent` and persists it, with its nonce, as the intent's current
 * transaction, all in one database transaction: nothing is ever sent that is not stored first.
 * If the intent moved meanwhile (another run signed first) it returns the intent as it is now
 * and signs nothing.
 */
export async function signAttempt(
  { db, chains, clock }: ActivityDependencies,
  intent: Intent,
  plan: TransferPlan,
  nonceChoice: NonceChoice,
  detail: Record<string, unknown> = {},
): Promise<Intent> {
  const chain = chains.get(intent.chainId);
  return db.transaction(async (trx) => {
    const current = await getIntentForUpdate(db, trx, intent.id);
    if (current.version !== intent.version) return current;
    const wallet = { chainId: intent.chainId, address: intent.from };
    const nonce =
      nonceChoice.kind === 'same'
        ? current.nonce
        : await allocateNonce(
            db,
            trx,
            wallet,
            nonceChoice.kind === 'fresh' ? nonceChoice.chainPendingNonce : 0,
          );
    if (nonce === undefined || nonce === null)
      throw new UnknownWalletError(intent.chainId, intent.from);
    const signed = await chain.signTransfer(plan, nonce);
    const now = clock.now();
    const attempt = (await listAttempts(trx, intent.id)).length + 1;
    const cause = causeOf[nonceChoice.kind];
    await insertAttempt(
      trx,
      { intentId: intent.id, attempt, nonce, ...signed, ...plan, cause },
      now,
    );
    if (cause !== 'first') {
      await recordAudit(
        trx,
        {
          intentId: intent.id,
          action: cause === 'fee_bump' ? 'replaced' : 'nonce_reassigned',
          actor: 'relayer',
          detail: {
            attempt,
            nonce,
            txHash: signed.txHash,
            replaces: current.txHash,
            maxFeePerGas: plan.maxFeePerGas.toString(),
            maxPriorityFeePerGas: plan.maxPriorityFeePerGas.toString(),
            ...detail,
          },
        },
        now,
      );
    }
    return transitionIntent(
      trx,
      current,
      {
        status: cause === 'first' ? IntentStatus.signed : current.status,
        nonce,
        txHash: signed.txHash,
        rawTx: signed.rawTx,
      },
      now,
    );
  });
}
