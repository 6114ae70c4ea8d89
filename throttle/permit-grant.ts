/** What a try for a permit is answered. */
export type PermitGrant =
  | { granted: true; permitId: string; waitedMs: number }
  /**
   * `reserved`: the try has a slot in the line, `retryAfterMs` from now, and takes its permit then
   * without queueing again; `busy`: its slot has come but every in-flight slot is held (the
   * in-flight bound is not reservable by time), and it keeps its slot meanwhile.
   */
  | { granted: false; reason: 'reserved' | 'busy' | 'timeout' | 'closed'; retryAfterMs: number }
  /** QUOTA_MODE=task-queue: permits come from the server's paced queue, not from here. */
  | { granted: false; reason: 'server-paced'; retryAfterMs: 0 };
