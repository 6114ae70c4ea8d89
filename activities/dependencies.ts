import type { AdmissionLimits } from '../operations/admission';
import type { ChainRegistry } from '../chain/chain';
import type { Failpoints } from './failpoints';
import type { Database } from '../store/database';
import type { PermitGrant } from '../throttle/throttle';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** How long ago an intent was submitted, by `clock`. */
export const ageMs = (intent: { createdAt: Date }, clock: Clock): number =>
  Math.max(0, clock.now().getTime() - intent.createdAt.getTime());

/** The part of the quota the steps use; the Bottleneck limiter or a test double. */
export interface PermitSource {
  acquire(permitId: string, signal?: AbortSignal): Promise<PermitGrant>;
  release(permitId: string): boolean;
  /** Right before a send: 0 to go now (counted), otherwise the ms to wait (see SendPacer). */
  reserveSend(): Promise<number>;
}

/** Everything a step touches, handed in so tests can pass real parts or fakes. */
export interface ActivityDependencies {
  db: Database;
  chains: ChainRegistry;
  throttle: PermitSource;
  clock: Clock;
  /** The task queue on which this process serves permit releases (see domain/task-queues.ts). */
  permitReleaseQueue: string;
  /** The API's admission limits, applied to batch items too; none: every item is admitted. */
  admission?: AdmissionLimits;
  /** Where fault tests kill the process (CRASH_AT); none in normal running. */
  failpoints?: Failpoints;
}
