/**
 * Places between a side effect and the report that it happened, where a fault test kills the worker
 * process (CRASH_AT): the permit taken, a slot in the permit line reserved (the try answered
 * `reserved`: `after-reservation` instead of `after-permit`), the intent marked, the hold written,
 * the attempt signed and stored, the bytes sent, the receipt looked at, the intent closed, the
 * permit returned, the orphans' workflows started, an operator's decision applied (a cancel signed
 * and stored), the lane rule's cancel signed and stored, a batch item's wallet turn handed on. Each
 * is an activity's end (local activities included) except `after-sign`, `after-policy-check` and
 * `after-turn-passed` (reached by batch items only), which lie inside the broadcast,
 * `after-release` when the broadcast itself gives the permit back, `after-lane-freed`, reached only
 * when the lane rule's step stored a cancel (most of its looks find nothing to do), and
 * `after-webhook-sent`: a receiver answered 2xx, the delivery not yet marked (it is sent again, the
 * same webhook-id); `after-lease-moved`: this process took a chain's reader lease from another and
 * has not read the head yet (the others wait for it until the lease lapses);
 * `after-top-up-admitted`: the top-up sweep wrote a top-up, its workflow not started yet (the
 * orphan sweep starts it); `after-approval`: a second key's approval (or a rejection) written, its
 * workflow not told yet; `after-policy-check`: inside the broadcast, the policy in force let a held
 * intent be signed (a call's simulation passed too), nothing signed yet; `after-unmined-cancel`: a
 * tenant's or operator's cancel of a payment sent but not mined signed, stored and sent, not yet
 * reported; `after-speed-up`: a speed-up's replacement signed, stored and sent, not yet
 * reported; `after-allow-upgrade`: a run entering a long wait moved off its pinned build, not yet
 * reported; `after-occurrence-admitted`: a schedule's occurrence admitted as an intent and
 * recorded, its workflow not started yet; `after-deposit-detected`: a scan recorded deposits and
 * its blocks read, not yet reported; `after-deposit-credited`: a deposit credited to its tenant,
 * the scan not yet reported; `after-deposit-sweep-admitted`: a sweep of a deposit address written
 * with its deposits, its workflow not started yet (the orphan sweep starts it);
 * `after-delayed-notice`: inside a look at an unmined payment, its `intent.delayed` recorded, the
 * look not yet reported.
 */
export const crashPoints = [
  'after-permit',
  'after-reservation',
  'after-settling',
  'after-hold',
  'after-sign',
  'after-turn-passed',
  'after-broadcast',
  'after-confirm',
  'after-close',
  'after-release',
  'after-sweep',
  'after-review',
  'after-lane-freed',
  'after-webhook-sent',
  'after-lease-moved',
  'after-top-up-admitted',
  'after-approval',
  'after-policy-check',
  'after-unmined-cancel',
  'after-speed-up',
  'after-allow-upgrade',
  'after-occurrence-admitted',
  'after-deposit-detected',
  'after-deposit-credited',
  'after-deposit-sweep-admitted',
  'after-delayed-notice',
] as const;

export type CrashPoint = (typeof crashPoints)[number];

/** The crash point at the end of each activity that has one (see crashPointAfter). */
export const crashPointAfterActivity: Readonly<Record<string, CrashPoint>> = {
  acquireThrottle: 'after-permit',
  tryAcquirePermit: 'after-permit',
  markSettling: 'after-settling',
  hold: 'after-hold',
  broadcast: 'after-broadcast',
  confirm: 'after-confirm',
  closeIntent: 'after-close',
  releaseThrottle: 'after-release',
  resumeOrphans: 'after-sweep',
  resolveReview: 'after-review',
  cancelUnmined: 'after-unmined-cancel',
  speedUp: 'after-speed-up',
  decideApproval: 'after-approval',
  decideBatchApproval: 'after-approval',
  allowUpgrade: 'after-allow-upgrade',
};

/** Where an activity's end lies: a permit try that reserved a slot has its own point. */
export function crashPointAfter(activityType: string, result: unknown): CrashPoint | undefined {
  const reserved =
    typeof result === 'object' &&
    result !== null &&
    'reason' in result &&
    (result as { reason: unknown }).reason === 'reserved';
  return reserved ? 'after-reservation' : crashPointAfterActivity[activityType];
}

export interface Failpoints {
  /** Called where `point` lies; may not return (the process is gone), or may throw (a panic). */
  reach(point: CrashPoint): void;
}

/** Crash point → the time it is reached (1 = the first) at which the process dies. */
export type CrashPlan = ReadonlyMap<CrashPoint, number>;

/** What happens where: crash points that kill the process, and points where a step panics. */
export interface FailPlans {
  crash?: CrashPlan;
  panic?: CrashPlan;
}

/**
 * Kills this process with SIGKILL (no cleanup, no drain, nothing reported to Temporal) the n-th
 * time a planned crash point is reached: what a power cut or an OOM kill does to a worker. At a
 * planned panic point the step throws a TypeError instead, as a bug in it would, after its side
 * effect: the worker lives on, counts a panic, and Temporal tries the step again.
 */
export function plannedFailpoints(
  plans: FailPlans,
  kill: () => void = () => process.kill(process.pid, 'SIGKILL'),
): Failpoints {
  const reached = new Map<CrashPoint, number>();
  return {
    reach(point) {
      const times = (reached.get(point) ?? 0) + 1;
      reached.set(point, times);
      if (plans.crash?.get(point) === times) {
        process.stderr.write(`crash point ${point} reached (time ${times}): SIGKILL\n`);
        kill();
      }
      if (plans.panic?.get(point) === times) {
        throw new TypeError(`panic planned at ${point} (time ${times})`);
      }
    },
  };
}
