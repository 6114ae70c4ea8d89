import { Client, Connection } from '@temporalio/client';
import { join } from 'node:path';
import { startLocalWorld } from '../../test/harness/stack/local-world';
import { ProviderModelProcess } from '../../test/harness/stack/provider-model-process';
import { freePort } from '../../test/harness/stack/free-port';
import { startPostgres } from '../../test/harness/stack/postgres';
import { startDevServer } from '../../test/harness/stack/temporal-servers';
import { withBenchStack } from './bench-stack';
import { benchBaseline, prepareBaseline } from './baseline';
import { findProcess, processUsage } from '../../test/harness/process-usage';

import { armNames, onTemporal, serverOf } from './arms';
import { chainLabel, quotaLabel, type Result, type Server } from './cell';
import { measure, deployBenchToken } from './measure-cell';
import { reportResults } from './report';
import { parseBenchFlags, baselineArguments } from './bench-flags';

/**
 * `npm run bench`: what durability costs. Three arms on the same dev server, and in each cell of a
 * grid of intents N × quota Q × processes on the same anvil and database, one after another:
 *   A the relayer's activities step by step in an in-process p-limit pool (no Temporal),
 *   B the Temporal relayer, quota by Bottleneck (shared through Redis across processes),
 *   S the same on a dev server with the CLI's stock settings (B's server is tuned: see
 *     tunedDevServerSettings),
 *   C the Temporal relayer, quota by the server (maxTaskQueueActivitiesPerSecond on the permit
 *     queue) instead of Bottleneck,
 *   P the same as B on the Temporal server built from source on PostgreSQL (SQL visibility), as
 *     `npm run cluster` runs it: what the production topology costs beside the dev server.
 * The RPC proxy in front of anvil, in a process of its own, is the ground truth: it counts every
 * call and, where Q is limited, enforces Q on sends itself as a provider would (a refusal is a
 * 429). Ratios are measured side by side in one run and printed, never asserted.
 */
async function main(): Promise<void> {
  const { options, arms, provider, groups, total, minutes, runs } = parseBenchFlags();

  const profileDir = options.profile ? join(options.out, 'profiles') : undefined;
  const baseline =
    options.baseline === undefined
      ? undefined
      : prepareBaseline(options.baseline, (message) => console.log(message));
  const results = await withBenchStack(
    async ({ temporalAddress, temporalMetricsUrl, stockAddress, cluster, ...built }) => {
      const postgres = options.store === 'postgres' ? await startPostgres() : undefined;
      const connect = async (address: string, cpuMs?: () => number): Promise<Server> => {
        const pid = findProcess(['start-dev', '--port', address.split(':')[1]!]);
        return {
          address,
          client: new Client({ connection: await Connection.connect({ address }) }),
          cpuMs: cpuMs ?? (() => (pid === undefined ? 0 : processUsage(pid).cpuMs)),
        };
      };
      const tuned = { ...(await connect(temporalAddress)), metricsUrl: temporalMetricsUrl };
      const freshDevServer = async (withMetrics: boolean) => {
        const metricsPort = withMetrics ? await freePort() : undefined;
        const environment = await startDevServer({ metricsPort });
        const server: Server = {
          ...(await connect(environment.address)),
          ...(metricsPort !== undefined && {
            metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
          }),
        };
        return {
          server,
          stop: async () => {
            await server.client.connection.close();
            await environment.teardown();
          },
        };
      };
      const stock = stockAddress === undefined ? undefined : await connect(stockAddress);
      const onPostgres = cluster && (await connect(cluster.address, cluster.cpuMs));
      const measured: Result[] = [];
      try {
        for (const group of groups) {
          const { blockTimeSeconds } = group[0]!;
          const world = await startLocalWorld({
            temporalAddress,
            ...(blockTimeSeconds > 0 && { anvil: { blockTimeSeconds } }),
            postgresServerUrl: postgres?.url,
            redis: true,
            wallets: 8,
            tenants: {},
          });
          const model = await ProviderModelProcess.start(world.anvil.rpcUrl).catch(
            async (error: unknown) => {
              await world.stop();
              throw error;
            },
          );
          try {
            if (group[0]!.asset === 'token') await deployBenchToken(world);
            for (const cell of group) {
              const index = measured.length;
              console.log(
                `[${index + 1}/${total}] ${armNames[cell.arm]}: N ${cell.intents}` +
                  (cell.minutes === undefined ? ', ' : ` open for ${cell.minutes} min, `) +
                  `Q ${quotaLabel(cell.quota)} (${cell.model}), ${cell.processes} process(es), ` +
                  `${chainLabel(cell)}, ${cell.asset}, webhooks ${cell.webhooks}, ` +
                  `${cell.traces ? 'traced, ' : ''}${cell.workers === 'compiled' ? 'compiled, ' : ''}provider ` +
                  `${cell.providerWindow}${cell.limitFactor === 1 ? '' : ` at 1/${cell.limitFactor} of Q`}`,
              );
              const shared = serverOf(cell.arm, { tuned, stock, onPostgres });
              // A baseline's cell runs on a fresh dev server of its own bench: ours gets one too,
              // or it would carry every earlier cell's workflows (a dev server's cost per intent
              // grows with what it holds, and later cells would compare worse for it).
              const fresh =
                baseline && onTemporal(cell.arm) && shared === tuned && measured.length > 0
                  ? await freshDevServer(options.profile === true)
                  : undefined;
              const server = fresh?.server ?? shared;
              // The baseline's run of the cell comes before ours on odd cells, after on even.
              const onBaseline = async () =>
                baseline && onTemporal(cell.arm)
                  ? (
                      await benchBaseline(
                        baseline,
                        baselineArguments(cell, provider),
                        join(options.out, 'baseline', `cell-${index + 1}`),
                      )
                    )[0]
                  : undefined;
              const before = index % 2 === 1 ? await onBaseline() : undefined;
              const result = await measure(
                world,
                model,
                server,
                cell,
                index,
                built,
                provider,
                profileDir,
              ).finally(() => fresh?.stop());
              const after = index % 2 === 0 ? await onBaseline() : undefined;
              const cellBaseline = before ?? after;
              measured.push(cellBaseline ? { ...result, baseline: cellBaseline } : result);
            }
          } finally {
            await model.stop();
            await world.stop();
          }
        }
        return measured;
      } finally {
        await Promise.all(
          [tuned, stock, onPostgres].map((server) => server?.client.connection.close()),
        );
        await postgres?.stop();
      }
    },
    {
      stock: arms.includes('S'),
      cluster: arms.includes('P'),
      serverMetrics: options.profile,
      traces: groups.flat().some((cell) => cell.traces),
      compiled: groups.flat().some((cell) => cell.workers === 'compiled'),
    },
  );

  await reportResults(results, options, baseline, profileDir, minutes, runs);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
