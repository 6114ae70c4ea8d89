import type { ReviewOutcome, SpeedUpRequest } from '../domain/review';
import { speedUpIntent } from '../operations/speed-up';
import type { ActivityDependencies } from './dependencies';
import { storeThenSend } from './transactions/send-requested';

/**
 * A speed-up of a payment sent but not mined, from inside its workflow (the `speedUp` update):
 * the replacement at its nonce signed and stored (operations/speed-up.ts), then sent.
 */
export const speedUp =
  (deps: ActivityDependencies) =>
  ({
    intentId,
    actor,
    ...request
  }: SpeedUpRequest & { intentId: string }): Promise<ReviewOutcome> =>
    storeThenSend(deps, actor, (parts, by) => speedUpIntent(parts, by, intentId, request));
