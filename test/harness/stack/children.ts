import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** A process as /proc shows it. */
export interface ProcessEntry {
  pid: number;
  parentPid: number;
  groupId: number;
  /** Z: exited, waiting for its parent to collect it (nothing left running). */
  state: string;
  command: string;
}

/** Every process this user can see (Linux /proc); empty elsewhere. */
export function listProcesses(): ProcessEntry[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const entries: ProcessEntry[] = [];
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so split after it.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      entries.push({
        pid: Number(pid),
        state: fields[0]!,
        parentPid: Number(fields[1]),
        groupId: Number(fields[2]),
        command: command || stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
      });
    } catch {
      // gone meanwhile
    }
  }
  return entries;
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the child is gone. */
export function stopProcess(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * The safety net under every server the dev workshop starts (anvil, Redis, PostgreSQL, worker
 * processes, and the Temporal servers the SDK spawns): when this process exits — a test file
 * done, a bench or demo that threw halfway, Ctrl-C — any child still running is killed, and
 * named, so nothing outlives the run that started it. Normal teardown stops them first; what is
 * reaped here is a teardown that never ran.
 */
export function reapChildrenOnExit(): void {
  if (process.listeners('exit').some((listener) => listener.name === reapLeftoverChildren.name)) {
    return;
  }
  process.on('exit', reapLeftoverChildren);
}

function reapLeftoverChildren(): void {
  const children = listProcesses().filter(
    (entry) =>
      entry.parentPid === process.pid &&
      entry.state !== 'Z' &&
      // tsx's esbuild service: the TypeScript loader's own helper, which ends with us anyway.
      !entry.command.includes('esbuild --service'),
  );
  for (const child of children) {
    try {
      process.kill(child.pid, 'SIGKILL');
      process.stderr.write(`stopped a leftover process at exit: ${child.pid} ${child.command}\n`);
    } catch {
      // exited meanwhile
    }
  }
}
