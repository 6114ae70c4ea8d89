import { FeeAboveCapError } from '../../domain/errors';
import { pastValidUntil } from '../../domain/intent-deadlines';
import { type Intent } from '../../domain/intent';
import { signedTransactionOf, signingWallet } from '../../domain/signed-intent';
import { paymentOf } from '../../domain/intent-payment';
import type { Chain } from '../../chain/chain';
import { recordAudit, type AuditEntry } from '../../store/audit-log';
import {
  currentTakesNonceBack,
  planOf,
  type TransactionAttempt,
} from '../../store/transaction-attempts';
import { pending, type ConfirmResult } from './result';
import type { ActivityDependencies } from '../dependencies';
import { unlessCancelled } from '../liveness';
import { checkNonceGap } from '../transactions/fill-nonce-gap';
import { claimLineRepair, inFlightAttemptAt } from '../../store/attempts-in-flight';
import { sendSigned } from '../transactions/send-signed';
import { signAttempt } from '../transactions/sign-attempt';

/** An intent's attempts, oldest first; the moves act on the newest. */
type Attempts = readonly TransactionAttempt[];

/**
 * The confirm step's moves for a transaction not mined yet (move.ts decides which): send
 * the same bytes again, fill the nonce gap it waits behind, outbid it, or sign the payment again
 * at a fresh nonce when a stranger used its own. Past the intent's validUntil none of its own
 * bytes go out again: it ends as the chain says, or in review at the confirmation timeout.
 */
export function pendingTransactionMoves(deps: ActivityDependencies) {
  const bound = (move: typeof outbid) => (chain: Chain, intent: Intent, attempts: Attempts) =>
    move(deps, chain, intent, attempts);
  return {
    whilePending: bound(whilePending),
    repairLine: bound(repairLine),
    outbid: bound(outbid),
    resend: bound(resend),
    reassign: bound(reassign),
  };
}

/** Past validUntil only a cancel (a nonce taken back) goes out again, or is outbid. */
const heldByDeadline = ({ clock }: ActivityDependencies, intent: Intent, attempts: Attempts) =>
  pastValidUntil(intent, clock.now()) && !currentTakesNonceBack(attempts);

/** In the node's pool, not mined: once stuck, fill the gap it waits behind or outbid it. */
async function whilePending(
  deps: ActivityDependencies,
  chain: Chain,
  intent: Intent,
  attempts: Attempts,
): Promise<ConfirmResult> {
  const { clock, throttle } = deps;
  const latest = attempts.at(-1)!;
  if (clock.now().getTime() - latest.createdAt.getTime() < chain.stuckAfterMs) {
    return pending(chain);
  }
  const gap = await unlessCancelled(checkNonceGap(deps, chain, { ...intent, nonce: latest.nonce }));
  if (gap.gap) {
    if (gap.fill) await sendSigned(chain, throttle, gap.fill);
    return pending(chain);
  }
  return (
    (await replace(deps, chain, intent, attempts, `not mined after ${chain.stuckAfterMs} ms`)) ??
    pending(chain)
  );
}

/**
 * Sends the intent's current bytes again; a refusal that needs a better bid gets one now, and
 * bytes lost again once stuck (dropped as underpriced, say) are outbid where the caps allow.
 */
async function resend(
  deps: ActivityDependencies,
  chain: Chain,
  intent: Intent,
  attempts: Attempts,
): Promise<ConfirmResult> {
  const { clock, throttle } = deps;
  if (heldByDeadline(deps, intent, attempts)) return pending(chain);
  const latest = attempts.at(-1)!;
  if (clock.now().getTime() - latest.createdAt.getTime() >= chain.stuckAfterMs) {
    const why = `lost by the node, not mined after ${chain.stuckAfterMs} ms`;
    const replaced = await replace(deps, chain, intent, attempts, why);
    if (replaced) return replaced;
  }
  const outcome = await sendSigned(chain, throttle, latest);
  if (typeof outcome === 'object') return pending(chain, 0, outcome.pacedMs);
  if (outcome === 'replace-needed')
    return (
      (await replace(deps, chain, intent, attempts, 'refused as underpriced')) ?? pending(chain)
    );
  // Some nodes do not show a queued transaction by hash, but do say they have it.
  if (outcome === 'already-known') return whilePending(deps, chain, intent, attempts);
  if (outcome === 'sent') {
    await auditRelayerMove(deps, intent.id, 'resent', {
      txHash: latest.txHash,
      nonce: latest.nonce,
    });
  }
  return pending(chain);
}

/** Its fee cap is below the chain's base fee: it cannot be mined as it is, so outbid it now. */
async function outbid(
  deps: ActivityDependencies,
  chain: Chain,
  intent: Intent,
  attempts: Attempts,
): Promise<ConfirmResult> {
  return (
    (await replace(deps, chain, intent, attempts, 'its fee cap is below the base fee')) ??
    pending(chain)
  );
}

/**
 * In the pool and not stuck yet: when it waits behind a nonce of ours that no endpoint has,
 * sends the bytes of the payment holding that nonce again now (the same bytes that payment's
 * own next look would send; at most once per block across the fleet).
 */
async function repairLine(
  deps: ActivityDependencies,
  chain: Chain,
  intent: Intent,
  attempts: Attempts,
): Promise<ConfirmResult> {
  const { db, throttle } = deps;
  const wallet = { chainId: intent.chainId, address: signingWallet(intent) };
  const missing = await chain.pendingNonce(wallet.address);
  if (missing >= attempts.at(-1)!.nonce) return pending(chain);
  const owner = await inFlightAttemptAt(db.kysely, wallet, missing);
  if (!owner || (await unlessCancelled(chain.knownToAnyEndpoint(owner.txHash)))) {
    return pending(chain);
  }
  const { head } = await chain.blocksSince();
  const repair = { ...wallet, nonce: missing, block: head, txHash: owner.txHash };
  if (!(await claimLineRepair(db.kysely, repair))) return pending(chain);
  const outcome = await sendSigned(chain, throttle, owner);
  if (outcome === 'sent') {
    await auditRelayerMove(deps, owner.intentId, 'line_repaired', {
      txHash: owner.txHash,
      nonce: missing,
      sentFor: intent.id,
    });
  }
  return pending(chain);
}

/** Outbids `latest` at its nonce; undefined at the caps (the attempt keeps its chance). */
async function replace(
  deps: ActivityDependencies,
  chain: Chain,
  intent: Intent,
  attempts: Attempts,
  why: string,
): Promise<ConfirmResult | undefined> {
  const { throttle } = deps;
  if (heldByDeadline(deps, intent, attempts)) return undefined;
  try {
    const latest = attempts.at(-1)!;
    const plan = await unlessCancelled(chain.planReplacement(planOf(intent, attempts, latest)));
    const replaced = await signAttempt(deps, intent, plan, { kind: 'same' }, { why });
    const signed = signedTransactionOf(replaced);
    if (signed) await sendSigned(chain, throttle, signed);
    return pending(chain, 0, undefined, signed?.txHash);
  } catch (error) {
    // At the caps the stuck attempt keeps its chance; the confirm timeout brings a person in.
    if (!(error instanceof FeeAboveCapError)) throw error;
    return undefined;
  }
}

/**
 * Signs the transfer again at a fresh nonce: the old one was used by a stranger for good. Not
 * after an operator's cancel: nothing is signed again, the confirm timeout brings the operator
 * back, who can then resolve it as failed (the nonce is used).
 */
async function reassign(
  deps: ActivityDependencies,
  chain: Chain,
  intent: Intent,
  attempts: Attempts,
): Promise<ConfirmResult> {
  const { clock, throttle } = deps;
  // Past the deadline a payment is not signed again, and a cancel is never re-signed to pay.
  if (currentTakesNonceBack(attempts) || pastValidUntil(intent, clock.now())) {
    return pending(chain);
  }
  const latest = attempts.at(-1)!;
  const plan = await unlessCancelled(chain.planTransfer(paymentOf(intent, signingWallet(intent))));
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

/** A chain move the relayer made on its own for an intent, in that intent's audit trail. */
const auditRelayerMove = (
  { db, clock }: ActivityDependencies,
  intentId: string,
  action: AuditEntry['action'],
  detail: AuditEntry['detail'],
) =>
  db.transaction((trx) =>
    recordAudit(trx, { intentId, action, actor: 'relayer', detail }, clock.now()),
  );
