import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { table } from '../../cli/table';
import { renderChart } from './chart';
import { baselineTable, type prepareBaseline } from './baseline';
import { profileTable } from './intent-profile';

import { armNames, type Arm } from './arms';
import {
  benchToken,
  chainLabel,
  quotaLabel,
  type BenchWebhooks,
  type Cell,
  type Result,
  type WorkerBuild,
} from './cell';
import type { BenchOptions } from './bench-flags';
import { mediansOfRuns } from './medians';
import { slowestTable } from './slowest-intents';

const methodShort: Record<string, string> = {
  eth_sendRawTransaction: 'send',
  eth_getTransactionReceipt: 'receipt',
  eth_getTransactionCount: 'nonce',
  eth_getTransactionByHash: 'tx',
  eth_blockNumber: 'block#',
  eth_getBlockByNumber: 'block',
  eth_estimateGas: 'gas',
  eth_maxPriorityFeePerGas: 'tip',
  eth_feeHistory: 'fees',
  eth_chainId: 'chainId',
  eth_gasPrice: 'gasPrice',
  eth_getBlockReceipts: 'block receipts',
  eth_getCode: 'code',
  eth_call: 'call',
};

function refusalSummary(r: Result): string {
  const byMethod = Object.entries(r.refusedByMethod)
    .sort((a, b) => b[1] - a[1])
    .map(([method, n]) => `${methodShort[method] ?? method} ${n}`);
  return byMethod.length === 0 ? '0' : `${r.refusedByProvider} (${byMethod.join(', ')})`;
}

function rpcSummary(perIntent: Record<string, number>): string {
  const total = Object.values(perIntent).reduce((sum, n) => sum + n, 0);
  const top = Object.entries(perIntent)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([method, n]) => `${methodShort[method] ?? method} ${n.toFixed(1)}`);
  return `${total.toFixed(1)}: ${top.join(', ')}`;
}

const headings = [
  'arm',
  'asset',
  'webhooks',
  'chain',
  'provider counts',
  'N',
  'Q',
  'procs',
  'intents/s',
  'sends/s ÷ Q',
  'units/s ÷ Q',
  "used ÷ provider's real limit",
  'after 30 s',
  'use of Q, 10–80% of the run',
  'most a rolling second lets this mix use: 1000 ms · window kept',
  '429s (by method) · % of calls',
  'RPC calls/intent (top)',
  'units/intent',
  'confirm p50 (blocks)',
  'step retries/intent',
  'RPC line: waited · mean ms · margin ms',
  'RPC line held calls: time · use of Q then / else · ms late a wake · calls left past the margin',
  'permits expired',
  'p50 / p99 / max latency',
  'load avg before',
  'history events/intent',
  'workflow tasks/intent',
  'CPU ms/intent worker · server · anvil',
  'peak RSS MB',
  `cores busy (of ${cpus().length})`,
  'wall s',
];

const fixed = (value: number | undefined) => (value === undefined ? '–' : value.toFixed(3));

function rowOf(r: Result): string[] {
  const { cell } = r;
  return [
    `${armNames[cell.arm]}${cell.traces ? ', traced' : ''}${cell.workers === 'compiled' ? ', compiled' : ''}` +
      (cell.run === undefined ? '' : `, run ${cell.run}`),
    cell.asset === 'token' ? `token (${benchToken.alias})` : 'native',
    cell.webhooks === 'none'
      ? '–'
      : `${cell.webhooks === 'hang' ? 'hanging' : '2xx'}, ${r.webhooksDelivered} delivered`,
    chainLabel(cell),
    `${cell.model === 'sends' ? 'sends' : 'all calls'}, ${cell.providerWindow}` +
      (cell.limitFactor === 1 || cell.quota === undefined
        ? ''
        : `, real ${quotaLabel(cell.quota / cell.limitFactor)}`),
    String(cell.intents),
    quotaLabel(cell.quota),
    String(cell.processes),
    r.intentsPerSecond.toFixed(1),
    cell.quota === undefined || cell.model === 'all'
      ? '–'
      : (r.sendsPerSecond / cell.quota).toFixed(3),
    cell.quota === undefined || cell.model === 'sends'
      ? '–'
      : (r.unitsPerSecond / cell.quota).toFixed(3),
    cell.quota === undefined ? '–' : (usedOfQuota(r)! * cell.limitFactor).toFixed(3),
    fixed(r.usedAfter30s),
    fixed(r.usedMidRun),
    r.packingBound === undefined
      ? '–'
      : `${fixed(r.packingBound.rollingSecond)} · ${fixed(r.packingBound.keptWindow)}`,
    `${refusalSummary(r)} · ${(r.refusedShare * 100).toFixed(2)}%`,
    rpcSummary(r.rpcPerIntent),
    r.unitsPerIntent.toFixed(1),
    r.confirmP50Blocks === undefined ? '–' : r.confirmP50Blocks.toFixed(2),
    r.retriesPerIntent.toFixed(2),
    `${(r.rpcLine.linedShare * 100).toFixed(1)}% · ${r.rpcLine.linedMeanMs.toFixed(0)} · ` +
      `${r.rpcLine.marginMeanMs.toFixed(1)} (≤ ${r.rpcLine.marginMostMs})`,
    `${(r.rpcLine.busyShare * 100).toFixed(1)}% · ${fixed(r.rpcLine.usedWhileBusy)} / ` +
      `${fixed(r.rpcLine.usedWhileIdle)} · ${r.rpcLine.lateMeanMs.toFixed(1)} · ` +
      `${(r.rpcLine.leftLateShare * 100).toFixed(1)}%`,
    String(r.permitsReclaimed),
    `${(r.p50Ms / 1000).toFixed(1)} s / ${(r.p99Ms / 1000).toFixed(1)} s / ${(r.maxMs / 1000).toFixed(1)} s`,
    r.loadAverage.toFixed(2),
    r.historyEventsPerIntent === undefined ? '–' : r.historyEventsPerIntent.toFixed(0),
    r.workflowTasksPerIntent === undefined ? '–' : r.workflowTasksPerIntent.toFixed(1),
    [r.cpuMsPerIntent.worker, r.cpuMsPerIntent.server, r.cpuMsPerIntent.anvil]
      .map((ms) => ms.toFixed(0))
      .join(' · '),
    r.peakRssMb.toFixed(0),
    r.coresBusy.toFixed(2),
    r.wallSeconds.toFixed(1),
  ];
}

/** What a cell used of its quota: sends (model `sends`) or units (model `all`) per second ÷ Q. */
const usedOfQuota = (r: Result): number | undefined =>
  r.cell.quota === undefined
    ? undefined
    : (r.cell.model === 'sends' ? r.sendsPerSecond : r.unitsPerSecond) / r.cell.quota;

/** The ratios worth a glance: B÷A throughput at unlimited Q, and each arm's efficiency per Q. */
function headlines(results: Result[]): string[] {
  const lines: string[] = [];
  const find = (
    arm: Arm,
    like: Cell,
    webhooks: BenchWebhooks = like.webhooks,
    traces: boolean = like.traces,
    workers: WorkerBuild = like.workers,
  ) =>
    results.find(
      (r) =>
        r.cell.arm === arm &&
        r.cell.intents === like.intents &&
        r.cell.quota === like.quota &&
        r.cell.processes === like.processes &&
        r.cell.asset === like.asset &&
        r.cell.providerWindow === like.providerWindow &&
        r.cell.limitFactor === like.limitFactor &&
        r.cell.webhooks === webhooks &&
        r.cell.traces === traces &&
        r.cell.workers === workers,
    );
  const cpu = ({ cpuMsPerIntent: ms }: Result) =>
    `${ms.worker.toFixed(1)} + ${ms.server.toFixed(1)} ms`;
  for (const traced of results.filter((r) => r.cell.traces)) {
    const untraced = find(traced.cell.arm, traced.cell, traced.cell.webhooks, false);
    if (!untraced) continue;
    lines.push(
      `${traced.cell.arm} traced ÷ untraced, N ${traced.cell.intents}, Q ${quotaLabel(traced.cell.quota)}: ` +
        `throughput ${(traced.intentsPerSecond / untraced.intentsPerSecond).toFixed(2)}, ` +
        `worker + server CPU per intent ${cpu(traced)} ÷ ${cpu(untraced)}`,
    );
  }
  for (const compiled of results.filter((r) => r.cell.workers === 'compiled')) {
    const loaded = find(
      compiled.cell.arm,
      compiled.cell,
      compiled.cell.webhooks,
      compiled.cell.traces,
      'tsx',
    );
    if (!loaded) continue;
    lines.push(
      `${compiled.cell.arm} compiled ÷ through tsx, N ${compiled.cell.intents}, Q ${quotaLabel(compiled.cell.quota)}: ` +
        `throughput ${(compiled.intentsPerSecond / loaded.intentsPerSecond).toFixed(2)}, ` +
        `worker + server CPU per intent ${cpu(compiled)} ÷ ${cpu(loaded)}`,
    );
  }
  for (const withReceiver of results.filter((r) => r.cell.webhooks !== 'none')) {
    const without = find(withReceiver.cell.arm, withReceiver.cell, 'none');
    if (!without) continue;
    lines.push(
      `${withReceiver.cell.arm} with a ${withReceiver.cell.webhooks === 'hang' ? 'hanging' : '2xx'} webhook receiver ÷ without, ` +
        `N ${withReceiver.cell.intents}, Q ${quotaLabel(withReceiver.cell.quota)}: ` +
        `${(withReceiver.intentsPerSecond / without.intentsPerSecond).toFixed(2)} ` +
        `(${withReceiver.webhooksDelivered} events delivered)`,
    );
  }
  for (const b of results.filter(
    (r) =>
      r.cell.arm === 'B' &&
      r.cell.quota === undefined &&
      r.cell.webhooks === 'none' &&
      !r.cell.traces,
  )) {
    const a = find('A', b.cell);
    const c = find('C', b.cell);
    if (!a) continue;
    lines.push(
      `B÷A throughput, N ${b.cell.intents}, unlimited Q, ${b.cell.processes} proc: ` +
        `${(b.intentsPerSecond / a.intentsPerSecond).toFixed(2)}` +
        (c ? ` (C÷A ${(c.intentsPerSecond / a.intentsPerSecond).toFixed(2)})` : ''),
    );
  }
  for (const p of results.filter((r) => r.cell.arm === 'P')) {
    const b = find('B', p.cell);
    if (!b) continue;
    const cpu = (r: Result) => r.cpuMsPerIntent.worker + r.cpuMsPerIntent.server;
    lines.push(
      `P÷B (the Temporal server on PostgreSQL ÷ the dev server), N ${p.cell.intents}, ` +
        `Q ${quotaLabel(p.cell.quota)}, ${p.cell.processes} proc: throughput ` +
        `${(p.intentsPerSecond / b.intentsPerSecond).toFixed(2)}, p50 latency ` +
        `${(p.p50Ms / b.p50Ms).toFixed(2)}, worker + server CPU per intent ` +
        `${(cpu(p) / cpu(b)).toFixed(2)} (server ${p.cpuMsPerIntent.server.toFixed(0)} vs ` +
        `${b.cpuMsPerIntent.server.toFixed(0)} ms)`,
    );
  }
  for (const model of ['sends', 'all'] as const) {
    const ofModel = results.filter((r) => r.cell.model === model);
    const quotas = [...new Set(ofModel.flatMap((r) => (r.cell.quota ? [r.cell.quota] : [])))];
    for (const quota of quotas.sort((x, y) => x - y)) {
      const parts = (['A', 'B', 'C'] as Arm[]).flatMap((arm) => {
        const cells = ofModel.filter((r) => r.cell.arm === arm && r.cell.quota === quota);
        if (cells.length === 0) return [];
        const mean = cells.reduce((sum, r) => sum + usedOfQuota(r)!, 0) / cells.length;
        const refused = cells.reduce((sum, r) => sum + r.refusedByProvider, 0);
        return [`${arm} ${mean.toFixed(3)} (${refused} 429s)`];
      });
      lines.push(
        model === 'sends'
          ? `efficiency (sends/s ÷ Q) at Q ${quota}/s: ${parts.join(', ')}`
          : `budget use (units/s ÷ Q, every call counted) at Q ${quota} units/s: ${parts.join(', ')}`,
      );
    }
  }
  for (const r of results.filter((r) => r.cell.blockTimeSeconds > 0 && r.cell.arm === 'B')) {
    const calls = Object.values(r.rpcPerIntent).reduce((sum, n) => sum + n, 0);
    lines.push(
      `B on ${chainLabel(r.cell)}, N ${r.cell.intents}, Q ${quotaLabel(r.cell.quota)}, ` +
        `${r.cell.processes} proc: ${calls.toFixed(2)} RPC calls and ${r.unitsPerIntent.toFixed(1)} ` +
        `units per intent, confirmation p50 ${r.confirmP50Blocks?.toFixed(2)} block times`,
    );
  }
  return lines;
}

function markdown(results: Result[], settings: string): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    '# Benchmark: in-process pool vs Temporal relayer vs server-side quota',
    '',
    `Generated by \`npm run bench -- ${settings}\` on ${new Date().toISOString().slice(0, 10)}.`,
    '',
    ...headlines(results).map((h) => `- ${h}`),
    '',
    line(headings),
    line(headings.map(() => '---')),
    ...results.map((r) => line(rowOf(r))),
    '',
    '![throughput and quota efficiency per arm](bench.png)',
    '',
  ].join('\n');
}

/** One cell in plain units, every column of the table, for a dashboard or a CI job. */
const jsonOf = (r: Result) => ({
  run: r.cell.run ?? null,
  arm: r.cell.arm,
  armName: armNames[r.cell.arm],
  intents: r.cell.intents,
  quotaPerSecond: r.cell.quota ?? null,
  processes: r.cell.processes,
  asset: r.cell.asset,
  webhooks: r.cell.webhooks,
  webhooksDelivered: r.webhooksDelivered ?? null,
  traces: r.cell.traces,
  workers: r.cell.workers,
  intentsPerSecond: r.intentsPerSecond,
  blockTimeSeconds: r.cell.blockTimeSeconds,
  providerCounts: r.cell.model,
  providerWindow: r.cell.providerWindow,
  limitFactor: r.cell.limitFactor,
  sendsPerSecondOverQuota: r.cell.quota === undefined ? null : r.sendsPerSecond / r.cell.quota,
  unitsPerSecondOverQuota: r.cell.quota === undefined ? null : r.unitsPerSecond / r.cell.quota,
  sendsPerSecond: r.sendsPerSecond,
  unitsPerSecond: r.unitsPerSecond,
  unitsPerIntent: r.unitsPerIntent,
  minutes: r.cell.minutes ?? null,
  providerRefusals: r.refusedByProvider,
  providerRefusedShareOfCalls: r.refusedShare,
  usedOfRealLimitAfter30s: r.usedAfter30s ?? null,
  usedOfQuotaMidRun: r.usedMidRun ?? null,
  packingBound: r.packingBound ?? null,
  providerRefusalsByMethod: r.refusedByMethod,
  rpcCallsPerIntentByMethod: r.rpcPerIntent,
  confirmationP50Blocks: r.confirmP50Blocks ?? null,
  stepRetriesPerIntent: r.retriesPerIntent,
  rpcLine: r.rpcLine,
  permitsReclaimedByExpiration: r.permitsReclaimed,
  latencyP50Ms: r.p50Ms,
  latencyP99Ms: r.p99Ms,
  latencyMaxMs: r.maxMs,
  loadAverageBefore: r.loadAverage,
  slowest: r.slowest ?? null,
  historyEventsPerIntent: r.historyEventsPerIntent ?? null,
  workflowTasksPerIntent: r.workflowTasksPerIntent ?? null,
  historyEventsByType: r.historyEventsByType ?? null,
  cpuMsPerIntent: r.cpuMsPerIntent,
  peakRssMb: r.peakRssMb,
  coresBusy: r.coresBusy,
  wallSeconds: r.wallSeconds,
  profile: r.profile ?? null,
  baseline: r.baseline ?? null,
});

const cellLabel = (r: Result) =>
  `${r.cell.arm} N ${r.cell.intents} Q ${quotaLabel(r.cell.quota)} ${r.cell.processes}p`;

/** Prints the cells' table, the headline ratios, the baseline's and the profile's tables; writes the table, chart and JSON. */
export async function reportResults(
  results: Result[],
  options: BenchOptions,
  baseline: ReturnType<typeof prepareBaseline> | undefined,
  profileDir: string | undefined,
  minutes: number | undefined,
  /** The whole grid's runs (--runs): results are run after run, each the same grid. */
  runs = 1,
): Promise<void> {
  const alignment = headings.map((heading) =>
    [
      'arm',
      'chain',
      'provider counts',
      'RPC calls/intent (top)',
      '429s (by method) · % of calls',
    ].includes(heading)
      ? 'left'
      : 'right',
  );
  const summary = table(headings, alignment);
  for (const r of results) summary.push(rowOf(r));
  console.log(summary.toString());
  for (const r of results.filter((each) => each.slowest)) {
    console.log(
      `${cellLabel(r)}: p99 ${(r.p99Ms / 1000).toFixed(1)} s is over 3 × p50 ${(r.p50Ms / 1000).toFixed(1)} s`,
    );
    console.log(slowestTable(r.slowest!));
  }
  const medians = runs > 1 ? mediansOfRuns(results, runs) : results;
  if (runs > 1) {
    console.log(`each cell's median of ${runs} runs (README.md, the chart and the headlines):`);
    const medianTable = table(headings, alignment);
    for (const r of medians) medianTable.push(rowOf(r));
    console.log(medianTable.toString());
  }
  for (const line of headlines(medians)) console.log(line);
  if (baseline) {
    const pairs = results.flatMap((r) =>
      r.baseline ? [{ label: cellLabel(r), current: jsonOf(r), baseline: r.baseline }] : [],
    );
    console.log(baselineTable(baseline.sha, pairs).toString());
  }
  if (profileDir !== undefined) {
    const profiled = results.flatMap((r) =>
      r.profile ? [{ label: cellLabel(r), profile: r.profile }] : [],
    );
    console.log(
      "where an intent's cost went: the worker's threads busy (ms per intent, sampled: running or blocked in a call) by kind of code, and the server's persistence requests per intent",
    );
    console.log(profileTable(profiled).toString());
    console.log(`CPU profiles (open in Chrome's DevTools): ${profileDir}`);
  }

  const settings =
    `--n ${options.n} --q ${options.q} --processes ${options.processes} ` +
    `--arms ${options.arms} --store ${options.store} --block-time ${options.blockTime} ` +
    `--model ${options.model} --weights ${options.weights} --asset ${options.asset} ` +
    `--webhooks ${options.webhooks} --traces ${options.traces} --workers ${options.workers} --provider-window ${options.providerWindow} ` +
    `--limit-factor ${options.limitFactor}` +
    (minutes === undefined ? '' : ` --minutes ${minutes}`) +
    (options.profile ? ' --profile' : '') +
    (runs > 1 ? ` --runs ${runs} (each figure the median)` : '') +
    (baseline ? ` --baseline ${baseline.sha.slice(0, 7)}` : '');
  mkdirSync(options.out, { recursive: true });
  writeFileSync(join(options.out, 'README.md'), markdown(medians, settings));
  writeFileSync(
    join(options.out, 'bench.png'),
    await renderChart(
      medians.map((r) => ({
        cell: `N ${r.cell.intents} · Q ${quotaLabel(r.cell.quota)} · ${r.cell.processes}p · ${chainLabel(r.cell)} · ${r.cell.model} · ${r.cell.asset} · webhooks ${r.cell.webhooks}`,
        arm: armNames[r.cell.arm],
        intentsPerSecond: r.intentsPerSecond,
        ...(r.cell.quota !== undefined && { efficiency: usedOfQuota(r) }),
      })),
    ),
  );
  console.log(
    `table and chart: ${join(options.out, 'README.md')}, ${join(options.out, 'bench.png')}`,
  );
  if (options.json) {
    // Every run's cells, then (with --runs) each cell's medians, marked `"run": "median"`.
    const cells = [
      ...results.map(jsonOf),
      ...(runs > 1 ? medians.map((r) => ({ ...jsonOf(r), run: 'median' })) : []),
    ];
    writeFileSync(options.json, `${JSON.stringify(cells, null, 2)}\n`);
    console.log(`JSON: ${options.json}`);
  }
}
