import type { ReviewOutcome } from '../domain/review';
import { freeAbandonedLane as applyLaneRule } from '../operations/abandoned-lane';
import type { ActivityDependencies } from './dependencies';
import { whileHeartbeating } from './liveness';
import { outcomeOf, thisStepKey } from './resolve-review';

/**
 * The lane rule, from inside the workflow of an intent waiting in review (see
 * operations/abandoned-lane.ts): the cancel it signs and stores carries this step's key, so a try
 * after a worker died past the commit finds it applied. Null when the rule does not apply.
 */
export const freeAbandonedLane =
  ({ db, chains, clock, failpoints }: ActivityDependencies) =>
  async ({ intentId }: { intentId: string }): Promise<ReviewOutcome | null> => {
    const intent = await whileHeartbeating(() =>
      applyLaneRule({ database: db, chains, clock: () => clock.now() }, intentId, thisStepKey()),
    );
    if (!intent) return null;
    failpoints?.reach('after-lane-freed');
    return outcomeOf(intent);
  };
