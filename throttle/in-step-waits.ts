import { priorityKeys } from '../domain/intent-priority';
import type { LinePlace } from './line-places';

/**
 * How near a slot must be for its try to wait for it inside the step: a third of the workflow
 * task's ten-second timeout at most, so the task never needs a heartbeat.
 */
export const inStepWaitMs = 1000;

/**
 * Tries whose slot is near wait for it inside their step instead of on a workflow timer (which
 * costs a workflow task, five history events, and on a server with the default timer floor a
 * second however short it is). Each waiting try holds one of the pool's local-activity slots,
 * which the permits' releases need too: only `max` wait at once, and tries below urgent only
 * while fewer than half do, so a bulk flood never takes the waits an urgent payment needs.
 */
export class InStepWaits {
  private waiting = 0;

  constructor(private readonly max: number) {}

  /** Whether a try `untilSlotMs` from its slot may wait for it here. */
  mayWait(untilSlotMs: number, place: LinePlace | undefined): boolean {
    const urgent = place?.rank === priorityKeys.urgent;
    const room = urgent ? this.max : Math.floor(this.max / 2);
    return untilSlotMs <= inStepWaitMs && this.waiting < room;
  }

  /** Holds one of the waits while `wait` runs. */
  async hold<T>(wait: () => Promise<T>): Promise<T> {
    this.waiting++;
    try {
      return await wait();
    } finally {
      this.waiting--;
    }
  }
}
