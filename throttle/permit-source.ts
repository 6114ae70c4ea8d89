import type { PermitGrant } from './throttle';

/** The part of the quota the steps use; the Bottleneck limiter, the server's pace or a test double. */
export interface PermitSource {
  acquire(permitId: string, signal?: AbortSignal): Promise<PermitGrant>;
  release(permitId: string): boolean;
  /** Right before a send: 0 to go now (counted), otherwise the ms to wait (see SendPacer). */
  reserveSend(): Promise<number>;
}
