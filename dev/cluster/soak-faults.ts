import { unsafeUniformIntDistribution, xoroshiro128plus } from 'pure-rand';
import { stopSummary } from '../../test/harness/stack/worker-process';
import type { Cluster } from './cluster';
import { versionedRollingUpgrade, type TemporalCli } from './versioned-upgrade';

/** What the soak does to the cluster under traffic, once each. */
export const faultKinds = [
  'rolling-restart',
  'rolling-upgrade',
  'worker-sigkill',
  'temporal-restart',
  'relayer-db-restart',
  'redis-restart',
  'rpc-outage',
] as const;
export type FaultKind = (typeof faultKinds)[number];

export interface FaultRecord {
  kind: FaultKind;
  /** ms since the soak began. */
  startedAtMs: number;
  tookMs: number;
  detail: string;
  /** Drains of the workers it stopped with SIGTERM: each must leave nothing abandoned. */
  drains: { worker: number; exit: number | string; abandoned?: number; panics?: number }[];
}

/**
 * The faults in a seeded order, spread evenly over the first 60% of the run, so that the
 * processes running at the end have run long enough to show whether their memory grows.
 */
export function faultSchedule(
  seed: number,
  durationMs: number,
): { kind: FaultKind; atMs: number }[] {
  const random = xoroshiro128plus(seed);
  const order = [...faultKinds];
  for (let i = order.length - 1; i > 0; i--) {
    const j = unsafeUniformIntDistribution(0, i, random);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const from = durationMs * 0.05;
  const span = durationMs * 0.55;
  return order.map((kind, index) => ({ kind, atMs: from + (span * index) / order.length }));
}

/** How long the soak's RPC endpoint stays down. */
const outageMs = 45_000;

/** Does `kind` to the cluster and waits until it is over (restarted, back up). */
export async function injectFault(
  kind: FaultKind,
  cluster: Cluster,
  /** The changed build's workflow bundle, and the CLI that makes it current, for the upgrade. */
  release: { code: string; temporal: TemporalCli },
  seed: number,
): Promise<Omit<FaultRecord, 'kind' | 'startedAtMs' | 'tookMs'>> {
  const drains: FaultRecord['drains'] = [];
  const replace = async (index: number, code?: string) => {
    const output = cluster.workers[index]!.output;
    const exit = await cluster.stopWorker(index, 'SIGTERM');
    drains.push({ worker: index + 1, exit, ...stopSummary(output()) });
    return cluster.startWorker(index, code);
  };
  switch (kind) {
    case 'rolling-restart':
      for (let index = 0; index < cluster.workers.length; index++) await replace(index);
      return {
        detail: `${cluster.workers.length} workers, one at a time: SIGTERM, drain, start`,
        drains,
      };
    case 'rolling-upgrade': {
      const { code, temporal } = release;
      const detail = await versionedRollingUpgrade(cluster, temporal, (index) =>
        replace(index, code),
      );
      return {
        detail: `onto workflow code with a patched() branch, by Worker Versioning: ${detail}`,
        drains,
      };
    }
    case 'worker-sigkill': {
      const index = seed % cluster.workers.length;
      await cluster.stopWorker(index, 'SIGKILL');
      await cluster.startWorker(index);
      return { detail: `worker ${index + 1} SIGKILLed, then started again`, drains };
    }
    case 'temporal-restart':
      await cluster.temporal.restart();
      return { detail: 'the Temporal server stopped (SIGTERM) and started again', drains };
    case 'relayer-db-restart':
      await cluster.relayerPostgres.restart();
      return {
        detail: "the relayer's PostgreSQL shut down and started again (every session ended)",
        drains,
      };
    case 'redis-restart':
      await cluster.world.redis!.restart();
      return { detail: 'Redis stopped and started empty (the shared quota state gone)', drains };
    case 'rpc-outage': {
      const [first] = cluster.proxies;
      first.failWith({ kind: 'reset' });
      await new Promise((resolve) => setTimeout(resolve, outageMs));
      first.failWith(undefined);
      return {
        detail: `the first RPC endpoint reset every connection for ${outageMs / 1000} s`,
        drains,
      };
    }
  }
}
