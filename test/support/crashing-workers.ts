import type { CrashPoint } from '../../activities/failpoints';
import type { WorkerProcess } from '../../dev/stack/worker-process';

export interface Crash {
  point: CrashPoint;
  /** ms after the first worker started */
  at: number;
}

/**
 * Keeps `width` worker processes running while crash points remain: each one starts with
 * CRASH_AT set to every point not yet reached (each at its planned count), so whichever comes
 * first kills it with SIGKILL; a new process replaces it with the points left. Once every point
 * has been reached, replacements run without CRASH_AT and finish the work.
 */
export class CrashingWorkers {
  readonly crashes: Crash[] = [];
  private readonly remaining: Map<CrashPoint, number>;
  private readonly running = new Set<WorkerProcess>();
  private readonly startedAt = Date.now();
  private stopping = false;
  private replacing: Promise<unknown> = Promise.resolve();
  /** Ways a worker ended other than a planned crash: each one fails the test. */
  readonly unexpectedExits: string[] = [];

  constructor(
    private readonly spawn: (env: Record<string, string>) => Promise<WorkerProcess>,
    plan: ReadonlyMap<CrashPoint, number>,
    private readonly width: number,
  ) {
    this.remaining = new Map(plan);
  }

  async start(): Promise<void> {
    await Promise.all(Array.from({ length: this.width }, () => this.startOne()));
  }

  /** Points never reached: the run ended before they came up. */
  get unreached(): CrashPoint[] {
    return [...this.remaining.keys()];
  }

  /** SIGTERM to every worker still running, once no replacement is being started. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.replacing;
    const running = [...this.running];
    for (const worker of running) worker.signal('SIGTERM');
    await Promise.all(running.map((worker) => worker.exited));
  }

  private async startOne(): Promise<void> {
    const crashAt = [...this.remaining].map(([point, n]) => `${point}@${n}`).join(',');
    const worker = await this.spawn(crashAt ? { CRASH_AT: crashAt } : {});
    this.running.add(worker);
    void worker.exited.then((exit) => {
      this.running.delete(worker);
      if (this.stopping) return;
      const point = worker.output().match(/crash point (\S+) reached/)?.[1] as CrashPoint;
      if (exit !== 'SIGKILL' || !point) {
        this.unexpectedExits.push(`worker exited with ${exit}:\n${worker.output()}`);
        return;
      }
      this.crashes.push({ point, at: Date.now() - this.startedAt });
      this.remaining.delete(point);
      this.replacing = this.replacing
        .then(() => this.startOne())
        .catch((error: Error) => this.unexpectedExits.push(`no replacement: ${error.message}`));
    });
  }
}
