import { processUsage, treeCpuMs } from '../bench/process-usage';
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
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }

  private sample(): void {
    const atMs = Date.now() - this.began;
    for (const process of this.processes()) {
      const pid = process.pid();
      if (!pid) continue;
      const own = processUsage(pid);
      if (own.rssBytes === 0) continue; // restarting
      const cpuMs = treeCpuMs(pid);
      this.samples.push({ atMs, name: process.name, pid, rssMb: own.rssBytes / 2 ** 20, cpuMs });
    }
  }
}
