import type { PermitGrant } from './throttle';

/** The part of the quota the steps use; the Bottleneck limiter, the server's pace or a test double. */
export interface PermitSource {
  /** A permit now, or when to ask again (never a wait in line). */
  tryAcquire(permitId: string): Promise<PermitGrant>;
  /** Waits for a permit, up to the throttle's maxWait. */
  acquire(permitId: string, signal?: AbortSignal): Promise<PermitGrant>;
  release(permitId: string): boolean;
  /** Right before a send: 0 to go now (counted), otherwise the ms to wait (see SendPacer). */
  reserveSend(): Promise<number>;
}
