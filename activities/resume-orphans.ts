import { BrokenInvariantError } from '../domain/errors';
import { runningBatchesBefore } from '../store/batches';
import { authorizedIntentsBefore } from '../store/intents';
import type { ActivityDependencies } from './dependencies';
import { whileHeartbeating } from './liveness';
import { retellTurns } from './wallet-turn';

export interface ResumeOrphansParameters {
  /** An intent or batch recorded at least this long ago without progress is looked at. */
  olderThanMs: number;
}

export interface ResumeOrphansResult {
  intents: number;
  batches: number;
  /** Batch items told their wallet's turn again (a word that may have been lost). */
  turns?: number;
}

/**
 * An intent is inserted, then its workflow started: a crash in between leaves it `authorized`
 * with no workflow, holding a tenant slot (a batch likewise, `running` with no workflow). This
 * starts the workflow of every intent authorized (and batch running) for a while; for those whose
 * workflow runs it joins it, so running it twice, or after a crash halfway, changes nothing.
 * Batch items are left to their batch, which starts them itself; those waiting long for their
 * wallet's turn are told it again (activities/wallet-turn.ts).
 */
export const resumeOrphans =
  (deps: ActivityDependencies) =>
  ({ olderThanMs }: ResumeOrphansParameters): Promise<ResumeOrphansResult> =>
    whileHeartbeating(async () => {
      const { db, clock, workflows } = deps;
      if (!workflows)
        throw new BrokenInvariantError({ rule: 'resumeOrphans is given no workflow starter' });
      const cutoff = new Date(clock.now().getTime() - olderThanMs);
      const intents = await authorizedIntentsBefore(db.kysely, cutoff);
      for (const intent of intents) await workflows.startIntent(intent);
      const batches = await runningBatchesBefore(db.kysely, cutoff);
      for (const batch of batches) await workflows.startBatch(batch);
      const turns = await retellTurns(deps, cutoff);
      return { intents: intents.length, batches: batches.length, ...(turns > 0 && { turns }) };
    });
