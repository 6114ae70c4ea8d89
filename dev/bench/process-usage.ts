import { readdirSync, readFileSync } from 'node:fs';

/** Linux reports CPU time in clock ticks; 100 a second on every distribution we run on. */
const msPerTick = 10;

export interface ProcessUsage {
  /** User + system CPU time so far. */
  cpuMs: number;
  /** The most resident memory the process has had (VmHWM). */
  peakRssBytes: number;
}

/** What a live process has used, from /proc (zeros once it is gone). */
export function processUsage(pid: number): ProcessUsage {
  try {
    // The command name may hold spaces: fields are counted after its closing parenthesis.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpuMs = (Number(fields[11]) + Number(fields[12])) * msPerTick;
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const peakKb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return { cpuMs, peakRssBytes: peakKb * 1024 };
  } catch {
    return { cpuMs: 0, peakRssBytes: 0 };
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
