import { RelayerError } from '../domain/errors';
import { signedTransactionOf } from '../domain/signed-intent';
import type { ReviewOutcome, UnminedCancelRequest } from '../domain/review';
import { cancelUnminedIntent } from '../operations/cancel-unmined';
import type { ActivityDependencies } from './dependencies';
import { whileHeartbeating } from './liveness';
import { outcomeOf, thisStepKey } from './resolve-review';
import { sendSigned } from './transactions/send-signed';

/**
 * A cancel of a payment sent but not mined, from inside its workflow (the `cancelUnmined`
 * update): the zero-value transfer at its nonce signed and stored (operations/cancel-unmined.ts)
 * under this step's key, so a try after a worker died past the commit finds it, then sent at the
 * RPC pace. A send the pace holds back or the node loses is sent again by the next look.
 */
export const cancelUnmined =
  ({ db, chains, clock, throttle }: ActivityDependencies) =>
  async ({
    intentId,
    actor,
    note,
  }: UnminedCancelRequest & { intentId: string }): Promise<ReviewOutcome> => {
    const intent = await whileHeartbeating(() =>
      cancelUnminedIntent(
        { database: db, chains, clock: () => clock.now() },
        { actor, decisionKey: thisStepKey() },
        intentId,
        note,
      ),
    );
    const cancel = signedTransactionOf(intent);
    if (cancel) {
      await whileHeartbeating(() =>
        sendSigned(chains.get(intent.chainId), throttle, cancel).catch((error: unknown) => {
          if (!(error instanceof RelayerError)) throw error;
        }),
      );
    }
    return outcomeOf(intent);
  };
