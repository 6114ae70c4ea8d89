import type { ReviewOutcome, UnminedCancelRequest } from '../domain/review';
import { cancelUnminedIntent } from '../operations/cancel-unmined';
import type { ActivityDependencies } from './dependencies';
import { storeThenSend } from './transactions/send-requested';

/**
 * A cancel of a payment sent but not mined, from inside its workflow (the `cancelUnmined`
 * update): the zero-value transfer at its nonce signed and stored (operations/cancel-unmined.ts),
 * then sent.
 */
export const cancelUnmined =
  (deps: ActivityDependencies) =>
  ({
    intentId,
    actor,
    note,
  }: UnminedCancelRequest & { intentId: string }): Promise<ReviewOutcome> =>
    storeThenSend(deps, actor, (parts, by) => cancelUnminedIntent(parts, by, intentId, note));
