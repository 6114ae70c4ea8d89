import { isNative } from '../../domain/asset';
import { isCustodyMove } from '../../domain/custody';
import { RelayerError, WalletBlockedError, WalletRetiredError } from '../../domain/errors';
import type { Intent } from '../../domain/intent';
import { paymentOf } from '../../domain/intent-payment';
import { isHeldIntentWait, reasonCodeOfError } from '../../domain/reason-codes';
import { enforcePaymentPolicy } from '../../operations/payment-policy';
import { blockedLanes, signableLaneFacts } from '../../operations/wallet-lanes';
import { transitionIntent } from '../../store/intents';
import { retiredWallets } from '../../store/wallet-pools';
import type { ActivityDependencies } from '../dependencies';
import { unlessCancelled } from '../liveness';
import { signAttempt } from '../transactions/sign-attempt';
import { signCall } from './sign-call';
import { signTokenPayment } from './sign-token-payment';

/**
 * Signs a held intent's first transaction, by what it pays: the native coin (here), a token
 * (sign-token-payment.ts) or a contract call (sign-call.ts). Checked first, each time: the policy
 * in force, and a pinned wallet neither retired nor blocked behind an intent in review.
 */
export async function signHeld(deps: ActivityDependencies, intent: Intent): Promise<Intent> {
  try {
    return await signHeldNow(deps, intent);
  } catch (error) {
    await sayWhyItWaits(deps, intent, error);
    throw error;
  }
}

async function signHeldNow(deps: ActivityDependencies, intent: Intent): Promise<Intent> {
  const { db, chains, clock, failpoints } = deps;
  const chain = chains.get(intent.chainId);
  // The first signing is the last moment a policy changed since admission can still stop the
  // payment (a retry or a replacement of bytes already signed is not checked again).
  if (!isCustodyMove(intent)) {
    await enforcePaymentPolicy(db, db.kysely, intent, 'signing', clock.now());
    failpoints?.reach('after-policy-check');
  }
  // Fees, gas, balances and nonces need RPC calls, so they are read before any lock is taken.
  if (intent.from !== null) {
    // Retired since it was admitted: it signs nothing new.
    if ((await retiredWallets(db.kysely, intent.chainId)).has(intent.from)) {
      throw new WalletRetiredError(intent.chainId, intent.from);
    }
    const blockedBy = await unlessCancelled(blockedLanes(db, chain));
    refuseBehindReview(intent, blockedBy.get(intent.from));
  }
  if (intent.callData) return signCall(deps, chain, intent);
  if (!isNative(intent.asset)) return signTokenPayment(deps, chain, intent, intent.asset);
  // An intent that named no wallet is planned with the first (gas only differs by recipient).
  const from = intent.from ?? chain.walletAddresses[0]!;
  const [plan, lanes] = await unlessCancelled(
    Promise.all([
      chain.planTransfer(paymentOf(intent, from)),
      intent.from === null ? signableLaneFacts(db, chain, intent.tenantId) : undefined,
    ]),
  );
  return signAttempt(deps, intent, plan, { kind: 'next', ...(lanes && { lanes }) });
}

/** A pinned wallet whose lane waits on an operator (an intent in review) signs nothing new. */
function refuseBehindReview(intent: Intent, blockedBy: string | undefined): void {
  if (intent.from === null || blockedBy === undefined) return;
  throw new WalletBlockedError(intent.chainId, intent.from, blockedBy);
}

/**
 * An intent that waits (heldIntentWaits: a wallet to fund, a review ahead of it) says why at
 * once, not when its time runs out; the step retries. Written when the words change: the same
 * again would only bump the version.
 */
async function sayWhyItWaits(
  { db, clock }: ActivityDependencies,
  intent: Intent,
  error: unknown,
): Promise<void> {
  if (!(error instanceof RelayerError)) return;
  const code = reasonCodeOfError(error.name);
  if (!isHeldIntentWait(code)) return;
  if (intent.reasonCode === code && intent.reason === error.message) return;
  await transitionIntent(
    db.kysely,
    intent,
    { status: intent.status, reason: { code, text: error.message } },
    clock.now(),
  );
}
