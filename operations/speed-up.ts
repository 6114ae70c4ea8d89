import { CannotSpeedUpError, FeeAboveCapError, type SpeedUpProblem } from '../domain/errors';
import { pastValidUntil } from '../domain/intent-deadlines';
import { IntentStatus, notYetSignedStatuses, type Intent } from '../domain/intent';
import type { SpeedUpRequest } from '../domain/review';
import { signedTransactionOf } from '../domain/signed-intent';
import type { FeeBid } from '../chain/fee-policy';
import { auditTrail } from '../store/audit-log';
import { getIntent } from '../store/intents';
import { currentTakesNonceBack, listAttempts, planOf } from '../store/transaction-attempts';
import { nonceSettled } from './nonce-settled';
import { decidedBy } from './review-decision';
import type { DecidedBy, ReviewCheckDependencies } from './review-decision/dependencies';
import { storeAtNonce } from './store-at-nonce';

/** Why an intent in `status` has nothing a speed-up could replace. */
export const problemOfStatus = (status: IntentStatus): SpeedUpProblem =>
  status === IntentStatus.needsReview
    ? 'in_review'
    : notYetSignedStatuses.has(status) || status === IntentStatus.awaitingApproval
      ? 'not_signed'
      : 'ended';

/**
 * A tenant's or operator's speed-up of a payment sent but not mined (`confirming`): its payment
 * signed again at the same nonce with a higher bid (the automatic bump's rule, replacementBid,
 * with the asked bid as a floor), stored as its current transaction with a `sped_up` audit entry.
 * Refused, writing nothing, when there is nothing to replace, the nonce is settled, the bid would
 * pass the chain's caps, or the payment took its SPEED_UPS_MAX already. A step's later try that
 * finds its speed-up stored (by `by.decisionKey`) answers with the intent as it is.
 */
export async function speedUpIntent(
  deps: ReviewCheckDependencies,
  by: DecidedBy,
  intentId: string,
  request: Omit<SpeedUpRequest, 'actor'>,
): Promise<Intent> {
  const { kysely } = deps.database;
  if (by.decisionKey !== undefined && (await decidedBy(deps, intentId, by.decisionKey))) {
    return getIntent(kysely, intentId);
  }
  const intent = await getIntent(kysely, intentId);
  const refused = (problem: SpeedUpProblem, why: string, status = intent.status) =>
    new CannotSpeedUpError({ intentId, status, problem, why });
  const signed = signedTransactionOf(intent);
  if (intent.status !== IntentStatus.confirming || !signed) {
    throw refused(
      problemOfStatus(intent.status),
      'only a payment sent and not mined can be sped up',
    );
  }
  if (pastValidUntil(intent, deps.clock?.() ?? new Date())) {
    throw refused('past_deadline', `its validUntil ${intent.validUntil!.toISOString()} has passed`);
  }
  const attempts = await listAttempts(kysely, intentId);
  if (currentTakesNonceBack(attempts)) {
    throw refused('cancelling', `a cancel is taking its nonce ${signed.nonce} back`);
  }
  const chain = deps.chains.get(intent.chainId);
  const settled = await nonceSettled(deps, intent, signed.nonce);
  if (settled) throw refused(settled.problem, settled.why);
  const done = (await auditTrail(kysely, intentId)).filter((e) => e.action === 'sped_up').length;
  if (done >= chain.speedUpsMax) {
    throw refused('limit_reached', `it was sped up ${done} times, the most allowed`);
  }
  const asked: Partial<FeeBid> = {
    ...(request.maxFeePerGas && { maxFeePerGas: BigInt(request.maxFeePerGas) }),
    ...(request.maxPriorityFeePerGas && {
      maxPriorityFeePerGas: BigInt(request.maxPriorityFeePerGas),
    }),
  };
  let plan;
  try {
    plan = await chain.planReplacement(planOf(intent, attempts, attempts.at(-1)!), asked);
  } catch (error) {
    if (!(error instanceof FeeAboveCapError)) throw error;
    throw refused('above_cap', error.message);
  }
  // Signed before the lock (a signer may be remote); nothing is sent until it is stored.
  const replacement = await chain.signTransfer(plan, signed.nonce);
  return storeAtNonce(
    deps,
    by,
    intent,
    { plan, signed: replacement, nonce: signed.nonce, cause: 'fee_bump' },
    {
      from: IntentStatus.confirming,
      next: IntentStatus.confirming,
      notFrom: (current) =>
        refused(problemOfStatus(current.status), 'it moved on meanwhile', current.status),
      action: 'sped_up',
      detail: { ...(request.note && { note: request.note }), speedUp: done + 1 },
    },
  );
}
