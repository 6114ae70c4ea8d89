export interface PacedSweeps {
  /** There may be work: the next sweep comes within `everyMs` of the last. */
  nudge(): void;
  /** No more sweeps; resolves once the one under way has ended. */
  stop(): Promise<void>;
}

/**
 * Runs `sweep` one at a time, driven by work: every `everyMs` while sweeps find some (the count
 * `sweep` returns) or something nudges; with nothing found the gap doubles up to `longestGapMs`,
 * and a nudge brings the next sweep back to `everyMs` after the last. A sweep that fails is the
 * next one's to do.
 */
export function pacedSweeps(
  sweep: () => Promise<number>,
  { everyMs, longestGapMs }: { everyMs: number; longestGapMs: number },
): PacedSweeps {
  let stopped = false;
  let gapMs = everyMs;
  let nudged = false;
  let lastSweepAt = Date.now();
  let nextAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<void> = Promise.resolve();
  const schedule = (inMs: number) => {
    clearTimeout(timer);
    nextAt = Date.now() + inMs;
    timer = setTimeout(run, inMs);
  };
  const run = () => {
    nudged = false;
    lastSweepAt = Date.now();
    sweeping = sweep().then(
      (found) => {
        gapMs = found > 0 || nudged ? everyMs : Math.min(gapMs * 2, longestGapMs);
        if (!stopped) schedule(gapMs);
      },
      () => {
        if (!stopped) schedule(gapMs);
      },
    );
  };
  schedule(everyMs);
  return {
    nudge() {
      if (stopped) return;
      nudged = true;
      gapMs = everyMs;
      // Sooner than planned, never two sweeps closer than everyMs. A sweep under way has an
      // earlier nextAt (its own) and plans the next when it ends, seeing `nudged`.
      const soonest = lastSweepAt + everyMs;
      if (nextAt > soonest) schedule(Math.max(0, soonest - Date.now()));
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await sweeping;
    },
  };
}
