import type { CallDeparture } from '../domain/call-departure';
import type { DeliveryMargin } from './delivery-margin';
import type { SpendWindow } from './spend-window';
import { log } from '../domain/log';

/** A call that left this much later than the margin covers has its spend moved. */
const movedPastMs = 1;

/**
 * The departure of the call that spent `units` as `id` in `window`, decided at `decidedAt`
 * (performance.now()) under `marginMs`. Its delay feeds `margin`; a call that left later than the
 * least delay and the margin cover — one that waited for a socket on a stalled process, seen
 * 100–200 ms late by the provider — has its spend moved by the rest (moveSpend), so the window
 * counts it where the provider can have. Only its first request counts: a look-up after a
 * refused send is a call of its own. Nothing moves once `owner` is closed; `onMoved` counts.
 */
export function lateDeparture(
  window: SpendWindow,
  spend: { id: string; units: number; decidedAt: number; marginMs: number },
  margin: DeliveryMargin,
  owner: { describe: string; isClosed: () => boolean; onMoved?: () => void },
): CallDeparture {
  let told = false;
  return {
    left() {
      if (told) return;
      told = true;
      const lateMs = performance.now() - spend.decidedAt;
      const pastMs = lateMs - margin.leastMs - spend.marginMs;
      margin.leaving(spend.decidedAt);
      if (pastMs < movedPastMs || owner.isClosed()) return;
      owner.onMoved?.();
      window
        .leftLate(spend.id, spend.units, pastMs)
        .catch((error: Error) =>
          log.error(
            `${owner.describe}: a call that left ${Math.round(lateMs)} ms late could not be moved in ` +
              `the shared window (${error.message}): check that the Redis at REDIS_URL is up and ` +
              `reachable from here; meanwhile the margin covers only the usual spread`,
          ),
        );
    },
  };
}
