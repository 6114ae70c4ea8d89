import { randomUUID } from 'node:crypto';
import { DeliveryMargin } from './delivery-margin';
import { lateDeparture } from './late-departure';
import type { SendTurn } from './permit-source';
import type { SpendWindow } from './spend-window';

/**
 * The send rate applied once more right before each send, by a spend window: steps between the
 * permit and the send bunch up on busy workers, as late timers bunch permits. Deciding at the
 * send, and moving a send that left later than the margin covers (late-departure.ts), holds the
 * bound however late a step runs.
 */
export class SendTurns {
  private readonly margin = new DeliveryMargin();
  /** This process's name in a shared window, and the sends it decided: each spend's id. */
  private readonly owner = randomUUID();
  private decided = 0;
  private closed = false;

  constructor(private readonly window: SpendWindow) {}

  async next(): Promise<SendTurn> {
    const decidedAt = performance.now();
    const id = `${this.owner}.${++this.decided}`;
    const marginMs = this.margin.marginMs;
    const waitMs = await this.window.take(1, undefined, marginMs, id);
    if (waitMs > 0) return { waitMs };
    const spend = { id, units: 1, decidedAt, marginMs };
    const owner = { describe: 'throttle: sends', isClosed: () => this.closed };
    return { waitMs: 0, departure: lateDeparture(this.window, spend, this.margin, owner) };
  }

  close(): void {
    this.closed = true;
  }
}
