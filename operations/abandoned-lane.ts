import { RelayerError } from '../domain/errors';
import { ErrorName } from '../domain/error-catalogue';
import { IntentStatus, type Intent } from '../domain/intent';
import { signedTransactionOf } from '../domain/signed-intent';
import { getIntent } from '../store/intents';
import { listAttempts } from '../store/transaction-attempts';
import { applyReviewDecision, decidedBy, type ReviewCheckDependencies } from './review-decision';

/** How the audit log names the relayer when the lane rule decides instead of a person. */
export const laneRuleActor = 'relayer (lane rule)';

/**
 * The lane rule (docs/chain.md): a signed intent waiting in review, past its confirmation
 * timeout, whose every transaction no configured endpoint has (in its pool or mined) and whose
 * nonce nobody has used, holds its wallet's lane for nothing: the relayer cancels it as an
 * operator would — a zero-value transfer to the wallet itself at that nonce — so the nonces
 * behind it can be mined. No double payment can come of it: the cancel and every attempt share
 * the nonce, so at most one of them is mined (if an attempt wins the race, the intent is
 * confirmed). Anything short of that certainty (an endpoint that cannot be asked, a nonce used,
 * a cancel above its fee cap) leaves the intent to a person; undefined then.
 */
export async function freeAbandonedLane(
  deps: ReviewCheckDependencies,
  intentId: string,
  decisionKey?: string,
): Promise<Intent | undefined> {
  // Applied already by an earlier try of the same step (its worker died after the commit).
  if (decisionKey !== undefined && (await decidedBy(deps, intentId, decisionKey))) {
    return getIntent(deps.database.kysely, intentId);
  }
  const intent = await getIntent(deps.database.kysely, intentId);
  if (intent.status !== IntentStatus.needsReview || !signedTransactionOf(intent)) return undefined;
  const chain = deps.chains.get(intent.chainId);
  for (const attempt of await listAttempts(deps.database.kysely, intentId)) {
    if (await chain.knownToAnyEndpoint(attempt.txHash)) return undefined;
  }
  try {
    return await applyReviewDecision(
      deps,
      { actor: laneRuleActor, decisionKey, intentVersion: intent.version },
      intentId,
      {
        action: 'cancel',
        note: 'no endpoint has its transactions and their nonce is unused after the confirmation timeout',
      },
    );
  } catch (error) {
    // The checks of an operator's cancel said no (a nonce used, a fee above the cap, moved on).
    if (error instanceof RelayerError && leftToAPerson.includes(error.name)) return undefined;
    throw error;
  }
}

const leftToAPerson: readonly string[] = [ErrorName.reviewRefused, ErrorName.notInReview];
