import type { CrashPoint } from '../../activities/failpoints';
import { ExitedBeforeReadyError, type WorkerProcess } from './stack/worker-process';

export interface Crash {
  point: CrashPoint;
  /** ms after the first worker started */
  at: number;
}

/**
 * How the plan's points are carried: `shared`, every process carries every point not yet
 * reached (whichever comes first kills it, and both often die at the same point); `split`, each
 * point is carried by one process at a time, so the processes die at different points at once.
 */
export type CrashSharing = 'shared' | 'split';

/**
 * Carried by every process whatever the sharing: a reader lease moves to whichever process is
 * left when its holder dies, so only a point every process carries is sure to be crossed.
 */
const carriedByEvery = new Set<CrashPoint>(['after-lease-moved']);

/**
 * Keeps `width` worker processes running while crash points remain, each started with CRASH_AT
 * set to its points (see CrashSharing) at their planned counts, so whichever comes first kills it
 * with SIGKILL; a new process replaces it and takes the points left. Once every point has been
 * reached, replacements run without CRASH_AT and finish the work.
 */
export class CrashingWorkers {
  readonly crashes: Crash[] = [];
  private readonly remaining: Map<CrashPoint, number>;
  /** Each running process and the points it carries. */
  private readonly running = new Map<WorkerProcess, CrashPoint[]>();
  private readonly killedByTest = new Set<WorkerProcess>();
  private readonly startedAt = Date.now();
  private stopping = false;
  private replacing: Promise<unknown> = Promise.resolve();
  /** Ways a worker ended other than a planned crash: each one fails the test. */
  readonly unexpectedExits: string[] = [];

  constructor(
    private readonly spawn: (env: Record<string, string>) => Promise<WorkerProcess>,
    plan: ReadonlyMap<CrashPoint, number>,
    private readonly width: number,
    private readonly sharing: CrashSharing = 'shared',
  ) {
    this.remaining = new Map(plan);
  }

  async start(): Promise<void> {
    const points = [...this.remaining.keys()];
    await Promise.all(
      Array.from({ length: this.width }, (_, i) =>
        this.startOne(
          this.sharing === 'shared'
            ? points
            : points.filter(
                (point, index) => carriedByEvery.has(point) || index % this.width === i,
              ),
        ),
      ),
    );
  }

  /** Points never reached: the run ended before they came up. */
  get unreached(): CrashPoint[] {
    return [...this.remaining.keys()];
  }

  /**
   * SIGKILL to the longest-running worker (the likeliest holder of a reader lease), at no crash
   * point: a kill the test drives; a replacement takes the points left.
   */
  async killOldest(): Promise<void> {
    const oldest = [...this.running.keys()][0];
    if (!oldest) return;
    this.killedByTest.add(oldest);
    oldest.signal('SIGKILL');
    await oldest.exited;
    await this.replacing;
  }

  /** SIGTERM to every worker still running, once no replacement is being started. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.replacing;
    const running = [...this.running.keys()];
    for (const worker of running) worker.signal('SIGTERM');
    await Promise.all(running.map((worker) => worker.exited));
  }

  /** The points a replacement carries: all those left, or those no running process carries. */
  private pointsForReplacement(): CrashPoint[] {
    const carried = new Set(this.sharing === 'split' ? [...this.running.values()].flat() : []);
    return [...this.remaining.keys()].filter(
      (point) => carriedByEvery.has(point) || !carried.has(point),
    );
  }

  private async startOne(points: CrashPoint[]): Promise<void> {
    const crashAt = points.map((point) => `${point}@${this.remaining.get(point)}`).join(',');
    let worker: WorkerProcess;
    try {
      worker = await this.spawn(crashAt ? { CRASH_AT: crashAt } : {});
    } catch (error) {
      // A point can come up while the process starts (a reader lease taken from the process
      // just killed): a planned crash like any other.
      if (!(error instanceof ExitedBeforeReadyError)) throw error;
      this.ended(error.exit, error.output);
      return;
    }
    this.running.set(worker, points);
    void worker.exited.then((exit) => {
      this.running.delete(worker);
      this.ended(exit, worker.output(), this.killedByTest.has(worker));
    });
  }

  /** Records a planned crash and starts the replacement; anything else fails the test. */
  private ended(exit: number | string, output: string, killedByTest = false): void {
    if (this.stopping) return;
    const point = output.match(/crash point (\S+) reached/)?.[1] as CrashPoint | undefined;
    if (exit !== 'SIGKILL' || (!point && !killedByTest)) {
      this.unexpectedExits.push(`worker exited with ${exit}:\n${output}`);
      return;
    }
    if (point) {
      this.crashes.push({ point, at: Date.now() - this.startedAt });
      this.remaining.delete(point);
    }
    this.replacing = this.replacing
      .then(() => this.startOne(this.pointsForReplacement()))
      .catch((error: Error) => this.unexpectedExits.push(`no replacement: ${error.message}`));
  }
}
