import { RelayerError } from '../domain/errors';
import { signedTransactionOf } from '../domain/signed-intent';
import type { ReviewOutcome, SpeedUpRequest } from '../domain/review';
import { speedUpIntent } from '../operations/speed-up';
import type { ActivityDependencies } from './dependencies';
import { whileHeartbeating } from './liveness';
import { outcomeOf, thisStepKey } from './resolve-review';
import { sendSigned } from './transactions/send-signed';

/**
 * A speed-up of a payment sent but not mined, from inside its workflow (the `speedUp` update):
 * the replacement at its nonce signed and stored (operations/speed-up.ts) under this step's key,
 * so a try after a worker died past the commit finds it, then sent at the RPC pace. A send the
 * pace holds back or the node loses is sent again by the next look.
 */
export const speedUp =
  ({ db, chains, clock, throttle }: ActivityDependencies) =>
  async ({
    intentId,
    actor,
    ...request
  }: SpeedUpRequest & { intentId: string }): Promise<ReviewOutcome> => {
    const intent = await whileHeartbeating(() =>
      speedUpIntent(
        { database: db, chains, clock: () => clock.now() },
        { actor, decisionKey: thisStepKey() },
        intentId,
        request,
      ),
    );
    const replacement = signedTransactionOf(intent);
    if (replacement) {
      await whileHeartbeating(() =>
        sendSigned(chains.get(intent.chainId), throttle, replacement).catch((error: unknown) => {
          if (!(error instanceof RelayerError)) throw error;
        }),
      );
    }
    return outcomeOf(intent);
  };
