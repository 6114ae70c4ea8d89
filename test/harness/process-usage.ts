import { readdirSync, readFileSync } from 'node:fs';
import { listProcesses } from './stack/children';

/** Linux reports CPU time in clock ticks; 100 a second on every distribution we run on. */
const msPerTick = 10;

export interface ProcessUsage {
  /** User + system CPU time so far. */
  cpuMs: number;
  /** The most resident memory the process has had (VmHWM). */
  peakRssBytes: number;
  /** Its resident memory now (VmRSS). */
  rssBytes: number;
}

/** What a live process has used, from /proc (zeros once it is gone). */
export function processUsage(pid: number): ProcessUsage {
  try {
    // The command name may hold spaces: fields are counted after its closing parenthesis.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpuMs = (Number(fields[11]) + Number(fields[12])) * msPerTick;
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return { cpuMs, peakRssBytes: kb('VmHWM') * 1024, rssBytes: kb('VmRSS') * 1024 };
  } catch {
    return { cpuMs: 0, peakRssBytes: 0, rssBytes: 0 };
  }
}

/** The process whose command line holds every one of `parts` (e.g. the dev server by its port). */
export function findProcess(parts: string[]): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (parts.every((part) => args.includes(part))) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/** CPU time of the children a live process has waited for (cutime and cstime). */
export function reapedChildrenCpuMs(pid: number | 'self'): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) * msPerTick;
}

/**
 * CPU time so far of a process and of its children, those it waited for included: a PostgreSQL
 * server's backends come and go.
 */
export function treeCpuMs(pid: number): number {
  try {
    const ended = reapedChildrenCpuMs(pid);
    const live = listProcesses()
      .filter((entry) => entry.parentPid === pid)
      .reduce((sum, child) => sum + processUsage(child.pid).cpuMs, 0);
    return processUsage(pid).cpuMs + ended + live;
  } catch {
    return 0;
  }
}

/**
 * A relayer process's V8 heap in use, MB, from its prom-client /metrics page (the main thread's
 * isolate): `nodejs_heap_size_used_bytes` (where the sawtooth is at the scrape) or
 * `relayer_heap_after_full_gc_bytes` (what the last full collection left; absent before one ran).
 * Undefined while it cannot answer.
 */
export async function heapUsedMb(
  metricsUrl: string,
  metric:
    | 'nodejs_heap_size_used_bytes'
    | 'relayer_heap_after_full_gc_bytes' = 'nodejs_heap_size_used_bytes',
): Promise<number | undefined> {
  try {
    const response = await fetch(metricsUrl, { signal: AbortSignal.timeout(2000) });
    const match = new RegExp(`^${metric} (\\d+(?:\\.\\d+)?)`, 'm').exec(await response.text());
    return match ? Number(match[1]) / 2 ** 20 : undefined;
  } catch {
    return undefined; // starting, restarting, or busy writing a heap snapshot
  }
}
