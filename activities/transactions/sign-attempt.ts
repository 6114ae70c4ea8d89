import {
  DeadlinePassedError,
  NoFundedWalletError,
  UnknownWalletError,
  BrokenInvariantError,
} from '../../domain/errors';
import { tokenNaming } from '../../store/assets';
import { pastValidUntil } from '../../domain/intent-deadlines';
import { chooseWallet } from '../../domain/wallet-choice';
import { IntentStatus, type Intent } from '../../domain/intent';
import { recordAudit } from '../../store/audit-log';
import type { Hex, TransferPlan } from '../../domain/transfer';
import { isNative } from '../../domain/asset';
import type { ActivityDependencies } from '../dependencies';
import { getIntentForUpdate, transitionIntent } from '../../store/intents';
import type { Kysely } from 'kysely';
import type { AttemptCause } from '../../domain/transfer';
import type { Schema } from '../../store/schema';
import {
  currentTakesNonceBack,
  insertAttempt,
  listAttempts,
} from '../../store/transaction-attempts';
import { allocateNonce } from '../../store/wallet-nonces';
import { walletLanes, type LaneFacts } from '../../store/wallet-lanes';

export type NonceChoice =
  /**
   * The wallet's next nonce (the first attempt). An intent that named no wallet gets one here,
   * chosen by `lanes`: what the chain said of the hot wallets, read before the lock; `preferred`
   * wins a tie, and is the only wallet it may be (a token transfer or a call was simulated from
   * it).
   */
  | { kind: 'next'; lanes?: LaneFacts; preferred?: Hex }
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
 * transaction, all in one database transaction: nothing is ever sent that is not stored first,
 * and nothing is signed past the intent's validUntil. If the intent moved meanwhile (another run
 * signed first) it returns the intent as it is now and signs nothing.
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
    const attempts = await listAttempts(trx, intent.id);
    // The last check before a payment's bytes exist: none are made after its deadline (a
    // cancel's outbid at its nonce is: nothing but the nonce taken back).
    const cancel = nonceChoice.kind === 'same' && currentTakesNonceBack(attempts);
    if (!cancel && pastValidUntil(current, clock.now())) {
      throw new DeadlinePassedError(current.id, current.validUntil!);
    }
    const from = current.from ?? (await chosenWallet(trx, current, plan, nonceChoice));
    const wallet = { chainId: intent.chainId, address: from };
    const nonce =
      nonceChoice.kind === 'same'
        ? current.nonce
        : await allocateNonce(
            db,
            trx,
            wallet,
            nonceChoice.kind === 'fresh' ? nonceChoice.chainPendingNonce : 0,
          );
    if (nonce === undefined || nonce === null) throw new UnknownWalletError(intent.chainId, from);
    const signed = await chain.signTransfer({ ...plan, from }, nonce);
    const now = clock.now();
    const attempt = attempts.length + 1;
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
        ...(current.from === null && { from }),
        // A reason it waited for (a blocked lane) is over once it is signed.
        ...(cause === 'first' && current.reason !== null && { reason: null }),
        nonce,
        txHash: signed.txHash,
        rawTx: signed.rawTx,
      },
      now,
    );
  });
}

/**
 * The wallet of an intent that named none, chosen under the signing transaction, so the nonces
 * in flight it counts include every intent signed before it (SQLite runs one writer at a time;
 * on PostgreSQL two signers may pick the same lane, which only makes it one nonce longer).
 */
async function chosenWallet(
  trx: Kysely<Schema>,
  intent: Intent,
  plan: TransferPlan,
  nonceChoice: NonceChoice,
): Promise<`0x${string}`> {
  if (nonceChoice.kind !== 'next' || !nonceChoice.lanes) {
    throw new BrokenInvariantError({
      rule: `intent ${intent.id} has no wallet: only its first signing chooses one`,
    });
  }
  const cost = plan.value + plan.gas * plan.maxFeePerGas;
  const tokenAmount = isNative(intent.asset) ? 0n : intent.amount;
  const lane = chooseWallet(
    await walletLanes(trx, intent.chainId, nonceChoice.lanes),
    cost,
    tokenAmount,
    nonceChoice.preferred,
  );
  // A token transfer or a call is signed only from the wallet it was simulated from.
  if (!lane || (nonceChoice.preferred !== undefined && lane.address !== nonceChoice.preferred)) {
    const token =
      tokenAmount > 0n
        ? { ...(await tokenNaming(trx, intent.chainId, intent.asset)), amount: tokenAmount }
        : undefined;
    throw new NoFundedWalletError(intent.chainId, cost, token);
  }
  return lane.address;
}
