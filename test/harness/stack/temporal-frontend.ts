import { Connection, type TLSConfig } from '@temporalio/client';
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { stopProcess } from './children';

export interface TemporalFrontendStart {
  /** Says which server in errors: "the Temporal server", "the Temporal dev server". */
  name: string;
  executable: string;
  args: string[];
  /** host:port of its frontend. */
  address: string;
  /** Where its stdout and stderr go (appended). */
  logPath: string;
  /** The frontend asks for mTLS: how a client connects (the health check too). */
  tls?: TLSConfig;
}

/**
 * Starts a Temporal server with its output in `logPath` and resolves once its frontend answers a
 * health check (every service joined); one that exits or never answers is stopped, and the error
 * names its log.
 */
export async function startTemporalFrontend(
  { name, executable, args, address, logPath, tls }: TemporalFrontendStart,
  timeoutMs = 120_000,
): Promise<ChildProcess> {
  const log = openSync(logPath, 'a');
  const child = spawn(executable, args, { stdio: ['ignore', log, log] });
  closeSync(log);
  try {
    await waitForFrontend(name, address, child, logPath, timeoutMs, tls);
    return child;
  } catch (error) {
    await stopProcess(child);
    throw error;
  }
}

async function waitForFrontend(
  name: string,
  address: string,
  child: ChildProcess,
  logPath: string,
  timeoutMs: number,
  tls?: TLSConfig,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`${name} exited (${child.exitCode}) on start; its log: ${logPath}`);
    }
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000, tls });
      try {
        await connection.healthService.check({});
        await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      if (Date.now() > deadline) {
        throw new Error(`${name} did not answer on ${address}; its log: ${logPath}`, {
          cause: error,
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
