import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startAnvil, type Anvil } from './anvil';
import type { Progress } from './toolchain';
import { startDevServer } from './temporal-servers';

export interface EmbeddedStackOptions {
  /** Holds the dev server's and the relayer's SQLite files; emptied at start. */
  dir: string;
  temporalPort: number;
  uiPort: number;
  anvilPort: number;
  progress: Progress;
}

export interface EmbeddedStack {
  temporal: TestWorkflowEnvironment;
  webUiUrl: string;
  anvil: Anvil;
  databaseUrl: string;
  stop(): Promise<void>;
}

/**
 * Temporal dev server (with Web UI), anvil and an SQLite file: everything a worker needs, on one
 * machine, without a network. Each start is a fresh world: anvil keeps its chain in memory, so
 * an old database would hold nonces the new chain never saw.
 */
export async function startEmbeddedStack(options: EmbeddedStackOptions): Promise<EmbeddedStack> {
  const dir = resolve(options.dir);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  options.progress(`state in ${dir} (the dev server's own log: temporal.log)`);
  const [temporalStart, anvilStart] = await Promise.allSettled([
    startDevServer({
      port: options.temporalPort,
      uiPort: options.uiPort,
      dbFilename: join(dir, 'temporal.sqlite'),
      logPath: join(dir, 'temporal.log'),
      progress: options.progress,
    }),
    startAnvil({ port: options.anvilPort }),
  ]);
  if (temporalStart.status === 'rejected' || anvilStart.status === 'rejected') {
    if (temporalStart.status === 'fulfilled') await temporalStart.value.teardown();
    if (anvilStart.status === 'fulfilled') await anvilStart.value.stop();
    throw temporalStart.status === 'rejected'
      ? new Error(
          `could not start the Temporal dev server on port ${options.temporalPort} ` +
            '(is another one running? choose others with --temporal-port and --ui-port)',
          { cause: temporalStart.reason },
        )
      : new Error(`could not start anvil on port ${options.anvilPort} (--anvil-port)`, {
          cause: (anvilStart as PromiseRejectedResult).reason,
        });
  }
  const temporal = temporalStart.value;
  const anvil = anvilStart.value;
  return {
    temporal,
    webUiUrl: `http://localhost:${options.uiPort}`,
    anvil,
    databaseUrl: `sqlite:${join(dir, 'relayer.sqlite')}`,
    async stop() {
      await Promise.all([temporal.teardown(), anvil.stop()]);
    },
  };
}
