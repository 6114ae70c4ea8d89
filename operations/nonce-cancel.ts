import { FeeAboveCapError } from '../domain/errors';
import { type Intent, type IntentStatus } from '../domain/intent';
import { signingWallet, type SignedTransaction } from '../domain/signed-intent';
import type { TransferPlan } from '../domain/transfer';
import { listAttempts } from '../store/transaction-attempts';
import { storeAtNonce } from './store-at-nonce';
import type { DecidedBy, ReviewCheckDependencies } from './review-decision/dependencies';

/** How a nonce cancel is taken: the status it leaves the intent in, and its refusals. */
export interface NonceCancelTerms {
  /** The only status the intent may be in when the cancel is stored. */
  from: IntentStatus;
  /** The status the stored cancel leaves it in. */
  next: IntentStatus;
  /** The refusal for an intent found in another status than `from`. */
  notFrom: (current: Intent) => Error;
  /** The refusal when outbidding every attempt at the nonce passes the chain's cancel fee cap. */
  aboveCap: (message: string) => Error;
  note?: string;
}

/**
 * Takes the intent's nonce back: a zero-value transfer from its wallet to itself at `signed`'s
 * nonce, outbidding every attempt there, stored as its newest attempt and current transaction
 * with a `cancel_signed` audit entry. Whichever transaction at the nonce is mined ends the intent:
 * this one fails it (cancelled on-chain), one of its own confirms it.
 */
export async function signNonceCancel(
  deps: ReviewCheckDependencies,
  by: DecidedBy,
  intent: Intent,
  signed: SignedTransaction,
  terms: NonceCancelTerms,
): Promise<Intent> {
  const chain = deps.chains.get(intent.chainId);
  const attempts = (await listAttempts(deps.database.kysely, intent.id)).filter(
    (attempt) => attempt.nonce === signed.nonce,
  );
  let plan: TransferPlan;
  try {
    plan = await chain.planCancel(signingWallet(intent), attempts);
  } catch (error) {
    if (!(error instanceof FeeAboveCapError)) throw error;
    throw terms.aboveCap(`cannot cancel: ${error.message}`);
  }
  // Signed before the lock (a signer may be remote); nothing is sent until it is stored.
  const cancel = await chain.signTransfer(plan, signed.nonce);
  return storeAtNonce(
    deps,
    by,
    intent,
    { plan, signed: cancel, nonce: signed.nonce, cause: 'cancel' },
    {
      from: terms.from,
      next: terms.next,
      notFrom: terms.notFrom,
      action: 'cancel_signed',
      detail: { note: terms.note },
    },
  );
}
