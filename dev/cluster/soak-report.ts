import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TopLevelSpec } from 'vega-lite';
import { table } from '../../cli/table';
import { renderSpec } from '../bench/chart';
import { percentile } from '../bench/rates';
import type { ProcessCrash } from './cluster';
import type { HeapSnapshotTaken, WorkerHeapGrowth } from './heap-growth';
import type { IdleCost } from './idle-cost';
import type { ProcessSample } from './soak-sampler';
import type { FaultRecord } from './soak-faults';
import type { TrafficTally } from './soak-traffic';

export interface SoakFigures {
  options: {
    minutes: number;
    workers: number;
    q: number;
    rate: number;
    seed: number;
    faults: 'all' | 'none';
    /** The provider's limit per endpoint, units/s (RPC_UNITS_PER_SECOND of docker-compose.yml). */
    providerLimit: number;
    endpoints: number;
  };
  faults: FaultRecord[];
  traffic: TrafficTally;
  /** Every intent row at the end (ms since the epoch). */
  rows: { id: string; status: string; createdAt: number; updatedAt: number }[];
  began: number;
  acceptedCount: number;
  /** The treasury's top-ups, by their status at the end. */
  topUps: string[];
  stillOpen: number;
  violations: string[];
  refusedByProvider: number;
  /** Every RPC call the endpoints saw, ms since the soak began, with its provider units. */
  calls: { atMs: number; method: string; units: number }[];
  samples: ProcessSample[];
  /** The fleet with nothing to do, after every intent ended. */
  /** What the fleet cost with no intents; undefined: not measured (`--idle 0`). */
  idle?: IdleCost;
  heapSnapshots: HeapSnapshotTaken[];
  /** What grew in each worker between its first heap snapshot and its last. */
  heapGrowth?: WorkerHeapGrowth[];
  histories: { sampled: number; eventsPerIntent: number; failedTasks: number };
  crashes: ProcessCrash[];
  /** The current Worker Deployment version at the end and the task queues it holds (≤ 100). */
  release?: { buildId: string; taskQueues: string[]; problem?: string };
  review: {
    query: string;
    listed: string[];
    inReviewAfterMs?: number;
    endedAs?: string;
    problem?: string;
  };
}

interface Check {
  name: string;
  ok: boolean | undefined;
  detail: string;
}

const minuteOf = (ms: number) => Math.floor(ms / 60_000);

/** A process sampled this close to the last sample of all still ran at the soak's end. */
const aliveAtEndMs = 30_000;

/** Each process's samples in time order (a restarted process is another pid). */
function samplesByProcess(samples: ProcessSample[]): ProcessSample[][] {
  const byPid = new Map<number, ProcessSample[]>();
  for (const sample of samples) {
    const list = byPid.get(sample.pid);
    if (list) list.push(sample);
    else byPid.set(sample.pid, [sample]);
  }
  return [...byPid.values()];
}

/** The worker processes that ran ≥ 10 min: their memory 5 min after they started and at the end. */
function workerMemory(samples: ProcessSample[]) {
  const lastAt = Math.max(...samples.map((s) => s.atMs));
  return samplesByProcess(samples.filter((s) => s.name.startsWith('worker')))
    .filter((list) => list.at(-1)!.atMs === lastAt && lastAt - list[0]!.atMs >= 10 * 60_000)
    .map((list) => {
      const afterFive = list.find((s) => s.atMs - list[0]!.atMs >= 5 * 60_000)!;
      const end = list.at(-1)!;
      return { name: end.name, pid: end.pid, afterFiveMb: afterFive.rssMb, endMb: end.rssMb };
    });
}

/**
 * Each process's memory after its warm-up (the first third of the run, 10 min at most) and at the
 * end: RSS, and for relayer processes the floor of their V8 heap (its lowest sample within five
 * minutes, so what a collection leaves, not where the sawtooth happens to be). Growth is judged
 * only for a process that ran to the soak's end: one a fault stopped ended under that fault.
 */
function memoryByProcess(samples: ProcessSample[], minutes: number) {
  const soakEnd = Math.max(...samples.map((s) => s.atMs));
  const warmUpMs = Math.min(10, minutes / 3) * 60_000;
  const windowMs = Math.min(5, minutes / 6) * 60_000;
  const floor = (list: ProcessSample[]) => {
    const heaps = list.flatMap((s) => (s.heapUsedMb === undefined ? [] : [s.heapUsedMb]));
    return heaps.length ? Math.min(...heaps) : undefined;
  };
  return samplesByProcess(samples).map((list) => {
    const first = list[0]!;
    const last = list.at(-1)!;
    const warm = list.filter(
      (s) => s.atMs >= first.atMs + warmUpMs && s.atMs < first.atMs + warmUpMs + windowMs,
    );
    const end = list.filter((s) => s.atMs > last.atMs - windowMs);
    const ranLongEnough =
      warm.length > 0 &&
      last.atMs - first.atMs >= 2 * warmUpMs &&
      soakEnd - last.atMs <= aliveAtEndMs;
    return {
      name: first.name,
      pid: first.pid,
      fromMinute: first.atMs / 60_000,
      toMinute: last.atMs / 60_000,
      warmRssMb: ranLongEnough ? warm[0]!.rssMb : undefined,
      endRssMb: last.rssMb,
      warmHeapMb: ranLongEnough ? floor(warm) : undefined,
      endHeapMb: floor(end),
    };
  });
}

/** CPU time each part used over the soak (every process of it, restarted ones included). */
function cpuByPart(samples: ProcessSample[]): Map<string, number> {
  const parts = new Map<string, number>();
  for (const list of samplesByProcess(samples)) {
    const part = list[0]!.name.startsWith('worker') ? 'workers' : list[0]!.name;
    const used = list.at(-1)!.cpuMs - (list[0]!.atMs < 15_000 ? list[0]!.cpuMs : 0);
    parts.set(part, (parts.get(part) ?? 0) + used);
  }
  return parts;
}

/** Per minute: intents ended, latency of those submitted, quota and budget use, workers' memory. */
function timeline(figures: SoakFigures) {
  const { rows, began, calls, samples, options } = figures;
  const minutes = Math.max(1, minuteOf(Math.max(...rows.map((r) => r.updatedAt - began), 0)) + 1);
  return Array.from({ length: minutes }, (_, minute) => {
    const ended = rows.filter(
      (r) => r.status !== 'needs_review' && minuteOf(r.updatedAt - began) === minute,
    );
    const latencies = rows
      .filter((r) => r.status === 'confirmed' && minuteOf(r.createdAt - began) === minute)
      .map((r) => (r.updatedAt - r.createdAt) / 1000)
      .sort((a, b) => a - b);
    const ofMinute = calls.filter((call) => minuteOf(call.atMs) === minute);
    const sends = ofMinute.filter((call) => call.method === 'eth_sendRawTransaction').length;
    const units = ofMinute.reduce((sum, call) => sum + call.units, 0);
    const workers = samples.filter(
      (s) => s.name.startsWith('worker') && minuteOf(s.atMs) === minute,
    );
    return {
      minute,
      endedPerSecond: ended.length / 60,
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      sendsOverQ: sends / 60 / options.q,
      unitsOverLimit: units / 60 / (options.providerLimit * options.endpoints),
      workerRssMb: workers.length ? Math.max(...workers.map((s) => s.rssMb)) : 0,
    };
  });
}

type ProcessMemory = ReturnType<typeof memoryByProcess>[number];

function checks(figures: SoakFigures, memoryOfProcesses: ProcessMemory[]): Check[] {
  const drains = figures.faults.flatMap((fault) => fault.drains);
  const badDrains = drains.filter((d) => d.exit !== 0 || d.abandoned !== 0 || d.panics !== 0);
  const badInput = figures.traffic.problems.filter((p) => p.startsWith('a bad request'));
  const otherProblems = figures.traffic.problems.filter((p) => !p.startsWith('a bad request'));
  const memory = workerMemory(figures.samples);
  const grown = memory.filter((m) => m.endMb > m.afterFiveMb * 1.1);
  const heaps = memoryOfProcesses.filter(
    (m) => m.name.startsWith('worker') && m.warmHeapMb !== undefined && m.endHeapMb !== undefined,
  );
  const heapGrown = heaps.filter((m) => m.endHeapMb! > m.warmHeapMb! * 1.05);
  return [
    {
      name: 'I1–I4: one payment per intent, ledger balanced, holds released',
      ok: figures.violations.length === 0,
      detail: figures.violations.length ? figures.violations.slice(0, 5).join('; ') : 'all hold',
    },
    {
      name: 'every accepted intent ended (0 lost)',
      ok: figures.stillOpen === 0,
      detail: `${figures.acceptedCount} accepted, ${figures.stillOpen} open at the end`,
    },
    {
      name: 'I5 as the soak sees it: every drain ends clean',
      ok: badDrains.length === 0,
      detail: `${drains.length} drains, ${badDrains.length} with an exit other than 0, abandoned steps or panics`,
    },
    {
      name: 'I6: bad input refused with its code, no row written',
      ok: badInput.length === 0 && figures.rows.length === figures.acceptedCount,
      detail: `${figures.traffic.badInputs} bad requests, ${badInput.length} answered otherwise; ${figures.rows.length} intent rows for ${figures.acceptedCount} accepted`,
    },
    {
      name: 'duplicates and cancels answered as documented',
      ok: otherProblems.length === 0,
      detail: otherProblems.length
        ? otherProblems.slice(0, 5).join('; ')
        : `${figures.traffic.duplicates} duplicate submits, ${figures.traffic.cancelled} cancelled, ${figures.traffic.cancelRefused} refused (signed)`,
    },
    {
      name: 'no process exited unasked',
      ok: figures.crashes.length === 0,
      detail: figures.crashes.length
        ? figures.crashes.map((c) => `${c.name} (${c.exit}) at ${c.at.toISOString()}`).join('; ')
        : 'none (each would have been started again, as compose does)',
    },
    {
      name: "the current build's version holds at most 100 task queues",
      ok: figures.release
        ? !figures.release.problem && figures.release.taskQueues.length <= 100
        : undefined,
      detail: !figures.release
        ? 'not measured'
        : (figures.release.problem ??
          `build ${figures.release.buildId}: ${figures.release.taskQueues.length} (${figures.release.taskQueues.join(', ')}); the per-process queues stay unversioned`),
    },
    {
      name: '0 × 429 from the provider',
      ok: figures.refusedByProvider === 0,
      detail: `${figures.refusedByProvider} refused of ${figures.calls.length} calls`,
    },
    {
      name: 'the needs_review filter on PostgreSQL visibility (CLI and Web UI), then a cancel on-chain',
      ok: !figures.review.problem && figures.review.endedAs === 'failed',
      detail:
        figures.review.problem ??
        `\`${figures.review.query}\` listed ${figures.review.listed.join(', ')} (the Web UI too); ended ${figures.review.endedAs}`,
    },
    {
      name: 'worker RSS at the end within 10% of 5 min after start',
      ok: memory.length === 0 ? undefined : grown.length === 0,
      detail: memory.length
        ? memory
            .map((m) => `${m.name} ${m.afterFiveMb.toFixed(0)} → ${m.endMb.toFixed(0)} MB`)
            .join(', ')
        : 'not measured: no worker ran 10 min to the end (a short soak)',
    },
    {
      name: 'worker V8 heap after warm-up within 5% to the end (floors)',
      ok: heaps.length === 0 ? undefined : heapGrown.length === 0,
      detail: heaps.length
        ? heaps
            .map((m) => `${m.name} ${m.warmHeapMb!.toFixed(0)} → ${m.endHeapMb!.toFixed(0)} MB`)
            .join(', ')
        : 'not measured: no worker ran twice its warm-up, to the end',
    },
  ];
}

async function chart(figures: SoakFigures, minutes: ReturnType<typeof timeline>): Promise<Buffer> {
  const faults = figures.faults.map((fault) => ({
    minute: fault.startedAtMs / 60_000,
    kind: fault.kind,
  }));
  const layer = (title: string, values: object[], y: string, color?: string) => ({
    title,
    width: 640,
    height: 140,
    layer: [
      {
        data: { values },
        mark: { type: 'line' as const, point: true },
        encoding: {
          x: { field: 'minute', type: 'quantitative' as const, title: 'minute' },
          y: { field: y, type: 'quantitative' as const, title: null },
          ...(color && { color: { field: color, type: 'nominal' as const, title: null } }),
        },
      },
      {
        data: { values: faults },
        mark: { type: 'rule' as const, strokeDash: [4, 4], color: 'gray' },
        encoding: { x: { field: 'minute', type: 'quantitative' as const } },
      },
    ],
  });
  const long = <T extends object>(rows: T[], fields: (keyof T)[]) =>
    rows.flatMap((row) =>
      fields.map((field) => ({ ...row, series: String(field), value: row[field] })),
    );
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    background: 'white',
    vconcat: [
      layer('intents ended per second (dashed: a fault)', minutes, 'endedPerSecond'),
      layer(
        'latency of confirmed intents by minute submitted, s',
        long(minutes, ['p50', 'p99']),
        'value',
        'series',
      ),
      layer(
        'quota use: sends/s ÷ Q, provider units/s ÷ limit',
        long(minutes, ['sendsOverQ', 'unitsOverLimit']),
        'value',
        'series',
      ),
      layer(
        'resident memory per process, MB',
        figures.samples.map((s) => ({
          minute: s.atMs / 60_000,
          rssMb: s.rssMb,
          process: `${s.name} (${s.pid})`,
        })),
        'rssMb',
        'process',
      ),
      layer(
        'V8 heap used per relayer process (main thread), MB',
        figures.samples.flatMap((s) =>
          s.heapUsedMb === undefined
            ? []
            : [{ minute: s.atMs / 60_000, heapMb: s.heapUsedMb, process: `${s.name} (${s.pid})` }],
        ),
        'heapMb',
        'process',
      ),
    ],
  } as TopLevelSpec;
  return renderSpec(spec);
}

/** The soak's report: soak.md (tables), soak.png (over time), soak.json; prints the tables. */
export async function writeSoakReport(
  figures: SoakFigures,
  dir: string,
): Promise<{ failed: boolean }> {
  const memory = memoryByProcess(figures.samples, figures.options.minutes);
  const results = checks(figures, memory);
  const minutes = timeline(figures);
  const ended = figures.rows.filter((r) => r.status !== 'needs_review').length;
  const checkTable = table(['check', 'result', 'detail'], ['left', 'left', 'left']);
  for (const check of results) {
    checkTable.push([
      check.name,
      check.ok === undefined ? 'n/a' : check.ok ? 'pass' : 'FAIL',
      check.detail,
    ]);
  }
  const faultTable = table(['at', 'fault', 'took', 'what'], ['right', 'left', 'right', 'left']);
  for (const fault of figures.faults) {
    faultTable.push([
      `${(fault.startedAtMs / 60_000).toFixed(1)} min`,
      fault.kind,
      `${(fault.tookMs / 1000).toFixed(1)} s`,
      fault.detail,
    ]);
  }
  const minuteTable = table(
    ['min', 'ended/s', 'p50 s', 'p99 s', 'sends/s ÷ Q', 'units/s ÷ limit', 'worker RSS MB'],
    ['right', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
  for (const m of minutes) {
    minuteTable.push([
      m.minute,
      m.endedPerSecond.toFixed(2),
      m.p50.toFixed(1),
      m.p99.toFixed(1),
      m.sendsOverQ.toFixed(3),
      m.unitsOverLimit.toFixed(3),
      m.workerRssMb.toFixed(0),
    ]);
  }
  const mb = (value: number | undefined) => (value === undefined ? '–' : value.toFixed(0));
  const change = (from: number | undefined, to: number | undefined) =>
    from === undefined || to === undefined ? '–' : `${(((to - from) / from) * 100).toFixed(1)}%`;
  const memoryTable = table(
    ['process', 'pid', 'min', 'RSS warm MB', 'RSS end MB', 'Δ', 'heap warm MB', 'heap end MB', 'Δ'],
    ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
  for (const m of memory) {
    memoryTable.push([
      m.name,
      m.pid,
      `${m.fromMinute.toFixed(0)}–${m.toMinute.toFixed(0)}`,
      mb(m.warmRssMb),
      mb(m.endRssMb),
      change(m.warmRssMb, m.endRssMb),
      mb(m.warmHeapMb),
      mb(m.endHeapMb),
      change(m.warmHeapMb, m.endHeapMb),
    ]);
  }
  const growthTables = (figures.heapGrowth ?? []).map((worker) => {
    const grown = table(
      [
        `${worker.name} (${worker.pid}): new since minute ${worker.fromMinute}, alive at ${worker.toMinute}`,
        'objects',
        'KB',
        'one of them kept by',
      ],
      ['left', 'right', 'right', 'left'],
    );
    for (const group of worker.grown) {
      grown.push([
        group.group.slice(0, 50),
        group.newObjects,
        (group.newBytes / 1024).toFixed(0),
        group.retainedBy.slice(0, 6).join(' ← ').slice(0, 120),
      ]);
    }
    return `heap ${(worker.beforeBytes / 2 ** 20).toFixed(1)} → ${(worker.afterBytes / 2 ** 20).toFixed(1)} MB\n${grown.toString()}`;
  });
  const cpuTable = table(['part', 'CPU ms per intent ended'], ['left', 'right']);
  for (const [part, cpuMs] of cpuByPart(figures.samples)) {
    cpuTable.push([part, (cpuMs / Math.max(1, ended)).toFixed(1)]);
  }
  const t = figures.traffic;
  const o = figures.options;
  const summary = [
    `${o.minutes} min, ${o.workers} workers, Q ${o.q} sends/s, ${o.rate} intents/s offered, seed ${o.seed}, faults ${o.faults}; ` +
      `${figures.acceptedCount} intents accepted (${t.payments} payments, ${t.batches} batches of 10), ${ended} ended; ` +
      `${figures.topUps.length} top-ups from the treasury (${figures.topUps.filter((status) => status === 'confirmed').length} confirmed); ` +
      `${t.outageRetries} submits asked again through an outage, ${t.admissionRetries} after an admission refusal; ` +
      `${figures.histories.eventsPerIntent.toFixed(1)} history events per confirmed intent (${figures.histories.sampled} sampled, ` +
      `${figures.histories.failedTasks} failed workflow tasks among them)`,
  ].join('\n');
  const text = [
    summary,
    '',
    checkTable.toString(),
    faultTable.toString(),
    minuteTable.toString(),
    memoryTable.toString(),
    ...growthTables,
    cpuTable.toString(),
    ...idleLines(figures.idle),
  ].join('\n');
  const crashOutput = figures.crashes.map((c) => `--- ${c.name} exited ${c.exit}:\n${c.output}`);
  console.log(text);
  if (crashOutput.length) console.log(crashOutput.join('\n'));
  writeFileSync(
    join(dir, 'soak.md'),
    [
      '# Soak',
      '',
      '```',
      text,
      ...crashOutput,
      '```',
      '',
      '![the soak over time](soak.png)',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'soak.png'), await chart(figures, minutes));
  writeFileSync(
    join(dir, 'soak.json'),
    JSON.stringify(
      {
        options: o,
        checks: results,
        faults: figures.faults,
        minutes,
        traffic: t,
        histories: figures.histories,
        memory,
        idle: figures.idle ?? null,
        heapGrowth: figures.heapGrowth,
      },
      null,
      2,
    ),
  );
  return { failed: results.some((check) => check.ok === false) };
}

/** The idle window's table and its line, or a line saying it was not measured. */
function idleLines(idle: IdleCost | undefined): string[] {
  if (!idle) return ['idle: not measured (--idle 0)'];
  const idleTable = table(
    [
      `idle for ${idle.seconds} s: process`,
      'pid',
      '% of a core',
      'Temporal tasks it ran meanwhile',
    ],
    ['left', 'right', 'right', 'left'],
  );
  for (const p of idle.processes) {
    const tasks = p.tasks && Object.entries(p.tasks).map(([kind, count]) => `${kind} ${count}`);
    idleTable.push([
      p.name,
      p.pid,
      (p.coreShare * 100).toFixed(2),
      tasks === undefined ? '' : tasks.join(', ') || 'none',
    ]);
  }
  const idleCalls = Object.entries(idle.rpcCallsPerSecondByMethod)
    .map(([method, perSecond]) => `${method} ${perSecond.toFixed(2)}/s`)
    .join(', ');
  const idleWorkers = idle.processes.filter((p) => p.name.startsWith('worker'));
  const workersMean =
    idleWorkers.reduce((sum, p) => sum + p.coreShare, 0) / Math.max(1, idleWorkers.length);
  const idleRpc =
    `idle workers: ${(workersMean * 100).toFixed(2)}% of a core on average (the fleet's sweeps run on whichever polls first); ` +
    `idle RPC: ${idle.rpcUnitsPerSecond.toFixed(2)} units/s (${idleCalls || 'no calls'}); ` +
    `${idle.finalizedInWindow} intents marked final meanwhile (the finality sweep reads each one's receipt: ` +
    `work the intents left, in the figures above)`;
  return [idleTable.toString(), idleRpc];
}
