import { Connection } from '@temporalio/client';
import type { ChildProcess } from 'node:child_process';

export interface StartingFrontend {
  /** Says which server in errors: "the Temporal server", "the Temporal dev server". */
  name: string;
  address: string;
  child: ChildProcess;
  logPath: string;
}

/** The frontend answers a health check once every service has joined. */
export async function waitForFrontend(
  { name, address, child, logPath }: StartingFrontend,
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`${name} exited (${child.exitCode}) on start; its log: ${logPath}`);
    }
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
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
