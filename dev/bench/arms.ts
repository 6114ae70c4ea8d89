import type { Client } from '@temporalio/client';
import { parseNewIntent } from '../../domain/intent-request';
import { admitIntent } from '../../operations/admit-intent';
import { submitIntent } from '../../service/submit-intent';
import type { Database } from '../../store/database';
import {
  spawnNodeProcess,
  spawnWorker,
  type SpawnOptions,
} from '../../test/harness/stack/worker-process';

// The five arms, and every way one differs from another: the server it runs on, how its
// processes start, how an intent reaches them, and where its quota is kept.

export type Arm = 'A' | 'B' | 'S' | 'C' | 'P';
export const armNames: Record<Arm, string> = {
  A: 'A in-process pool',
  B: 'B Temporal + Bottleneck',
  S: 'S = B on the stock dev server',
  C: 'C Temporal + server quota',
  P: 'P = B on the Temporal server on PostgreSQL',
};
/** The arms that run the Temporal relayer (and have histories to read). */
export const onTemporal = (arm: Arm) => arm !== 'A';

/** S runs on the dev server with the CLI's stock settings, P on the server on PostgreSQL. */
export const serverOf = <S>(arm: Arm, servers: { tuned: S; stock?: S; onPostgres?: S }): S =>
  (arm === 'S' ? servers.stock : arm === 'P' ? servers.onPostgres : servers.tuned)!;

/** C's permits come from the server's paced queue; the others keep the quota with Bottleneck. */
export const quotaModeOf = (arm: Arm) => (arm === 'C' ? 'task-queue' : 'bottleneck');

/** Processes that keep the quota with Bottleneck share it through Redis when there are several. */
export const sharesQuotaInRedis = (arm: Arm, processes: number) => processes > 1 && arm !== 'C';

/**
 * One of the cell's processes: for A, a pool of the relayer's steps without Temporal that takes
 * its shard of the cell's intents from the database; for the others, a relayer worker.
 */
export function startArmProcess(
  arm: Arm,
  env: Record<string, string>,
  cell: { tenantId: string; intents: number; shard: number; processes: number },
  spawnOptions: SpawnOptions,
) {
  if (arm !== 'A') return spawnWorker(env, spawnOptions);
  return spawnNodeProcess(
    'dev/bench/in-process-pool.ts',
    {
      ...env,
      BENCH_TENANT: cell.tenantId,
      BENCH_COUNT: String(cell.intents),
      BENCH_SHARD: String(cell.shard),
      BENCH_SHARDS: String(cell.processes),
    },
    /pool ready/,
    spawnOptions,
  );
}

/** What a compiled cell's processes run (arm A's pool too, so B ÷ A compares like with like). */
export const armEntryPoints = ['workers/worker-main.ts', 'dev/bench/in-process-pool.ts'];

/** An intent for the arm: A's pool finds it admitted in the database, the others are submitted. */
export function admitForArm(
  arm: Arm,
  deps: { database: Database; client: Client; taskQueue: string },
  request: unknown,
) {
  return arm === 'A'
    ? admitIntent(deps.database, parseNewIntent(request), {}, undefined, () => new Date())
    : submitIntent(deps, request);
}
