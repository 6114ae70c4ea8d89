import type { LinePlace } from './line-places';
import type { PermitGrant } from './permit-grant';
import type { CallDeparture } from '../domain/call-departure';

/**
 * A send's turn: go now (counted; the send's request tells `departure` when it leaves, so a send
 * that left late counts from then), or wait `waitMs`.
 */
export type SendTurn = { waitMs: 0; departure: CallDeparture } | { waitMs: number };

/**
 * The part of the quota the steps use; the Bottleneck limiter, the server's pace or a test double.
 */
export interface PermitSource {
  /**
   * A permit now, or when to ask again (never a wait in line); `slotKey` keeps a slot in the line,
   * `place` orders it there.
   */
  tryAcquire(
    permitId: string,
    slotKey?: string,
    place?: LinePlace,
    signal?: AbortSignal,
  ): Promise<PermitGrant>;
  /** Waits for a permit, up to the throttle's maxWait. */
  acquire(
    permitId: string,
    signal?: AbortSignal,
    slotKey?: string,
    place?: LinePlace,
  ): Promise<PermitGrant>;
  release(permitId: string): boolean;
  /** `slotKey` will not ask again: its slot in the line goes to the next. */
  cancelSlot(slotKey: string): Promise<void>;
  /** Right before a send: its turn (see SpendWindow). */
  reserveSend(): Promise<SendTurn>;
}
