import { confirmedAwaitingFinality, markIntentFinalized } from '../store/intents';
import type { ActivityDependencies } from './dependencies';
import { whileHeartbeating } from './liveness';

export interface MarkFinalizedParameters {
  /** The most intents marked per chain in one sweep (the next sweep takes the rest). */
  limit: number;
}

export interface MarkFinalizedResult {
  /** Chain id → intents marked final this sweep. */
  finalized: Record<string, number>;
}

/**
 * Confirmed intents whose block their chain's finalized block has reached get `finalizedAt`,
 * with the webhook `intent.finalized`, in bulk per chain: one read of the finalized block, one
 * indexed query, then each intent in its own short transaction (a compare-and-set on
 * `finalized_at`: a sweep run twice, or two at once, marks each intent once). Intent workflows are
 * long closed: this needs none of them.
 */
export const markFinalized =
  (deps: Pick<ActivityDependencies, 'db' | 'chains' | 'clock' | 'onFinalized'>) =>
  ({ limit }: MarkFinalizedParameters): Promise<MarkFinalizedResult> =>
    whileHeartbeating(async () => {
      const { db, chains, clock } = deps;
      const finalized: Record<string, number> = {};
      for (const chainId of chains.chainIds) {
        const head = await chains.get(chainId).finalizedBlock();
        const due = await confirmedAwaitingFinality(db.kysely, chainId, head, limit);
        let marked = 0;
        for (const intent of due) {
          const now = clock.now();
          if (await markIntentFinalized(db, intent, now)) {
            marked++;
            deps.onFinalized?.(intent, now);
          }
        }
        finalized[String(chainId)] = marked;
      }
      return { finalized };
    });
