import { heapUsedMb, processUsage, treeCpuMs } from '../../test/harness/process-usage';
import type { ClusterProcess } from './cluster';

export interface ProcessSample {
  /** ms since the soak began. */
  atMs: number;
  name: string;
  pid: number;
  /** Of the process itself (PostgreSQL's backends share its memory: not added). */
  rssMb: number;
  /** CPU time so far of the process and of its children, ended ones included (PostgreSQL's backends). */
  cpuMs: number;
  /**
   * A relayer process's V8 heap in use, from its own /metrics (the main thread's: the workflow
   * threads' isolates are counted in its RSS only).
   */
  heapUsedMb?: number;
}

/** Every process of the cluster's memory and CPU, every few seconds, for the soak's report. */
export class ProcessSampler {
  readonly samples: ProcessSample[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly processes: () => ClusterProcess[],
    private readonly began: number,
  ) {}

  start(everyMs: number): void {
    void this.sample();
    this.timer = setInterval(() => void this.sample(), everyMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sample();
  }

  private async sample(): Promise<void> {
    const atMs = Date.now() - this.began;
    await Promise.all(
      this.processes().map(async (process) => {
        const pid = process.pid();
        if (!pid) return;
        const own = processUsage(pid);
        if (own.rssBytes === 0) return; // restarting
        const cpuMs = treeCpuMs(pid);
        const heap = process.metricsUrl ? await heapUsedMb(process.metricsUrl) : undefined;
        this.samples.push({
          atMs,
          name: process.name,
          pid,
          rssMb: own.rssBytes / 2 ** 20,
          cpuMs,
          ...(heap !== undefined && { heapUsedMb: heap }),
        });
      }),
    );
  }
}
