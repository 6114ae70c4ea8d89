import { RelayerError } from '../../domain/errors';
import type { Intent } from '../../domain/intent';
import type { ReviewOutcome } from '../../domain/review';
import { signedTransactionOf } from '../../domain/signed-intent';
import type {
  DecidedBy,
  ReviewCheckDependencies,
} from '../../operations/review-decision/dependencies';
import type { ActivityDependencies } from '../dependencies';
import { whileHeartbeating } from '../liveness';
import { outcomeOf, thisStepKey } from '../resolve-review';
import { sendSigned } from './send-signed';

/**
 * A transaction a tenant or operator asked for at a payment's nonce (a cancel, a speed-up), from
 * inside its workflow's update: `store` signs and stores it under this step's key, so a try after
 * a worker died past the commit finds it and signs nothing more; then it is sent at the RPC pace.
 * A send the pace holds back or the node loses is sent again by the payment's next look.
 */
export async function storeThenSend(
  { db, chains, clock, throttle }: ActivityDependencies,
  actor: string,
  store: (parts: ReviewCheckDependencies, by: DecidedBy) => Promise<Intent>,
): Promise<ReviewOutcome> {
  const parts = { database: db, chains, clock: () => clock.now() };
  const intent = await whileHeartbeating(() => store(parts, { actor, decisionKey: thisStepKey() }));
  const signed = signedTransactionOf(intent);
  if (signed) {
    await whileHeartbeating(() =>
      sendSigned(chains.get(intent.chainId), throttle, signed).catch((error: unknown) => {
        if (!(error instanceof RelayerError)) throw error;
      }),
    );
  }
  return outcomeOf(intent);
}
