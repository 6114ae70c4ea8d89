import { Command, Option } from 'commander';
import { providerWindows, type ProviderWindow } from '../../test/harness/stack/provider-count';
import { settings as relayerSettings } from '../../workers/config/settings';

import { armNames, onTemporal, type Arm } from './arms';
import {
  cellDefaults,
  list,
  type BenchAsset,
  type BenchWebhooks,
  type Cell,
  type Provider,
  type ProviderModel,
  type WorkerBuild,
  workerBuilds,
} from './cell';

/** The bench's flags, as given. */
export interface BenchOptions {
  n: string;
  q: string;
  processes: string;
  arms: string;
  store: 'sqlite' | 'postgres';
  out: string;
  json?: string;
  blockTime: string;
  model: string;
  weights: string;
  asset: string;
  webhooks: string;
  providerWindow: string;
  limitFactor: string;
  traces: string;
  workers: string;
  minutes?: string;
  profile?: boolean;
  baseline?: string;
  runs: string;
}

/**
 * The flags, checked (every problem at once, exit 2), and the grid they describe: groups of cells
 * that share one fresh anvil and database, each group every arm in an order rotating by group.
 */
export function parseBenchFlags() {
  const program = new Command('bench')
    .description('three arms over a grid of intents × quota × processes')
    .addOption(new Option('--n <counts>', 'intents per cell').default('100,1000'))
    .addOption(
      new Option('--q <quotas>', 'sends/s per cell, or "unlimited"').default(
        '20,100,500,unlimited',
      ),
    )
    .addOption(new Option('--processes <counts>', 'worker processes per cell').default('1,2'))
    .addOption(new Option('--arms <arms>', 'arms to run: A, B, S, C, P').default('A,B,S,C'))
    .addOption(
      new Option('--block-time <seconds>', "anvil's block time per cell; 0: automine").default(
        cellDefaults.blockTime,
      ),
    )
    .addOption(
      new Option(
        '--model <models>',
        'what the provider counts: "sends" (sends only, as earlier versions) or "all" (every call by weight; Q is units/s)',
      ).default(cellDefaults.model),
    )
    .addOption(
      new Option('--weights <table>', "the provider's weights, as RPC_WEIGHTS").default(
        cellDefaults.weights,
      ),
    )
    .addOption(
      new Option(
        '--asset <assets>',
        'what the intents pay: native, token (a 6-decimal ERC-20)',
      ).default(cellDefaults.asset),
    )
    .addOption(
      new Option(
        '--webhooks <receivers>',
        "a webhook endpoint per cell's tenant: none, ok (answers 2xx), hang (never answers)",
      ).default(cellDefaults.webhooks),
    )
    .addOption(
      new Option('--store <store>', 'the relayer database')
        .choices(['sqlite', 'postgres'])
        .default('sqlite'),
    )
    .addOption(
      new Option(
        '--provider-window <windows>',
        'how the provider counts: bucket (a token bucket) or sliding (a rolling second)',
      ).default(cellDefaults.providerWindow),
    )
    .addOption(
      new Option(
        '--limit-factor <factors>',
        "the configured quota ÷ the provider's real limit (2: configured twice too high)",
      ).default(cellDefaults.limitFactor),
    )
    .addOption(
      new Option(
        '--minutes <minutes>',
        'submit for this long in each cell, keeping N intents open, instead of N at once',
      ),
    )
    .addOption(
      new Option(
        '--profile',
        "where an intent's cost goes: the workers' threads busy by kind of code (CPU profiles, kept in --out) and the dev server's persistence requests by operation",
      ),
    )
    .addOption(
      new Option(
        '--baseline <commit>',
        "also run each Temporal cell on this commit's build (its own bench, just before or after ours, alternating) and print the ratios",
      ),
    )
    .addOption(
      new Option(
        '--traces <modes>',
        'off, on: the relayer exports traces of every intent to a Jaeger (what tracing costs)',
      ).default(cellDefaults.traces),
    )
    .addOption(
      new Option(
        '--workers <builds>',
        'tsx, compiled: how the processes run our TypeScript (the loader, or compiled once as the production image runs it)',
      ).default(cellDefaults.workers),
    )
    .addOption(
      new Option(
        '--runs <count>',
        'the whole grid this many times; each figure the median',
      ).default('1'),
    )
    .addOption(new Option('--out <dir>', 'where the table and chart go').default('docs/bench'))
    .addOption(new Option('--json <file>', 'also write every cell, every column, as JSON'))
    .parse();
  const options = program.opts<BenchOptions>();
  const problems: string[] = [];
  const numbers = (flag: string, value: string) =>
    list(value).map((part) => {
      if (!/^[1-9]\d*$/.test(part))
        problems.push(`${flag}: "${part}" is not a whole number above 0`);
      return Number(part);
    });
  const counts = numbers('--n', options.n);
  const processCounts = numbers('--processes', options.processes);
  const [runs = 1] = numbers('--runs', options.runs);
  const quotas = list(options.q).map((part) =>
    part === 'unlimited' ? undefined : numbers('--q', part)[0],
  );
  const arms = list(options.arms) as Arm[];
  for (const arm of arms)
    if (!(arm in armNames)) problems.push(`--arms: "${arm}" is not A, B, S, C or P`);
  const blockTimes = list(options.blockTime).map((part) => {
    if (!/^\d+$/.test(part))
      problems.push(`--block-time: "${part}" is not a whole number of seconds`);
    return Number(part);
  });
  const models = list(options.model) as ProviderModel[];
  for (const model of models)
    if (model !== 'sends' && model !== 'all')
      problems.push(`--model: "${model}" is not sends or all`);
  const benchAssets = list(options.asset) as BenchAsset[];
  for (const asset of benchAssets)
    if (asset !== 'native' && asset !== 'token')
      problems.push(`--asset: "${asset}" is not native or token`);
  const traceModes = list(options.traces);
  for (const mode of traceModes) {
    if (mode !== 'off' && mode !== 'on') problems.push(`--traces: "${mode}" is not off or on`);
  }
  const builds = list(options.workers) as WorkerBuild[];
  for (const build of builds)
    if (!workerBuilds.includes(build))
      problems.push(`--workers: "${build}" is not ${workerBuilds.join(' or ')}`);
  const receiverModes = list(options.webhooks) as BenchWebhooks[];
  for (const mode of receiverModes)
    if (!['none', 'ok', 'hang'].includes(mode))
      problems.push(`--webhooks: "${mode}" is not none, ok or hang`);
  const windows = list(options.providerWindow) as ProviderWindow[];
  for (const window of windows)
    if (!providerWindows.includes(window))
      problems.push(`--provider-window: "${window}" is not bucket or sliding`);
  const limitFactors = list(options.limitFactor).map((part) => {
    const factor = Number(part);
    if (!Number.isFinite(factor) || factor < 1)
      problems.push(`--limit-factor: "${part}" is not a number of 1 or more`);
    return factor;
  });
  const minutes = options.minutes === undefined ? undefined : Number(options.minutes);
  if (minutes !== undefined && !(Number.isFinite(minutes) && minutes > 0))
    problems.push(`--minutes: "${options.minutes}" is not a number of minutes above 0`);
  if (minutes !== undefined && arms.includes('A'))
    problems.push('--minutes: arm A runs a fixed N (its pool is handed the count); leave A out');
  const parsedWeights = relayerSettings.rpcWeights.parse.safeParse(options.weights);
  if (!parsedWeights.success) {
    problems.push(`--weights: ${parsedWeights.error.issues.map((i) => i.message).join(', ')}`);
  }
  if (runs > 1 && options.baseline !== undefined)
    problems.push('--runs: a baseline is compared run by run; give one or the other');
  if (options.baseline !== undefined && !arms.some(onTemporal))
    problems.push('--baseline: compares the Temporal arms; give one of B, S, C, P');
  if (problems.length > 0) {
    console.error(`bench: ${problems.join('; ')}`);
    process.exit(2);
  }

  // Each grid cell runs every arm, in an order that rotates from cell to cell, on one fresh
  // anvil and database: the arms share the chain and the store, and no cell inherits a chain
  // and a database grown by the cells before it (anvil slows down as its chain grows).
  const provider: Provider = { setting: options.weights, weights: parsedWeights.data! };
  const grid: Cell[][] = [];
  for (const blockTimeSeconds of blockTimes)
    for (const model of models)
      for (const asset of benchAssets)
        for (const webhooks of receiverModes)
          for (const traces of traceModes)
            for (const workers of builds)
              for (const intents of counts)
                for (const quota of quotas)
                  for (const processes of processCounts)
                    for (const providerWindow of windows)
                      for (const limitFactor of limitFactors) {
                        const rotation = grid.length;
                        grid.push(
                          arms.map((_, i) => ({
                            arm: arms[(i + rotation) % arms.length]!,
                            intents,
                            quota,
                            processes,
                            blockTimeSeconds,
                            model,
                            asset,
                            webhooks,
                            traces: traces === 'on',
                            workers,
                            providerWindow,
                            limitFactor,
                            ...(minutes !== undefined && { minutes }),
                          })),
                        );
                      }
  // --runs: the whole grid again, after the first (so a run's noise is spread over every cell).
  const groups = Array.from({ length: runs }, (_, r) =>
    runs === 1 ? grid : grid.map((group) => group.map((cell) => ({ ...cell, run: r + 1 }))),
  ).flat();
  const total = groups.flat().length;
  return { options, arms, provider, groups, total, minutes, runs };
}

/** The cell's flags for a baseline's bench: the defaults left out (an older bench may lack them). */
export function baselineArguments(cell: Cell, provider: Provider): string[] {
  const unlessDefault = (flag: string, value: string, fallback: string) =>
    value === fallback ? [] : [flag, value];
  return [
    '--arms',
    cell.arm,
    '--n',
    String(cell.intents),
    '--q',
    cell.quota === undefined ? 'unlimited' : String(cell.quota),
    '--processes',
    String(cell.processes),
    ...unlessDefault('--block-time', String(cell.blockTimeSeconds), cellDefaults.blockTime),
    ...unlessDefault('--model', cell.model, cellDefaults.model),
    ...unlessDefault('--weights', provider.setting, cellDefaults.weights),
    ...unlessDefault('--asset', cell.asset, cellDefaults.asset),
    ...unlessDefault('--webhooks', cell.webhooks, cellDefaults.webhooks),
    ...unlessDefault('--traces', cell.traces ? 'on' : 'off', cellDefaults.traces),
    ...unlessDefault('--workers', cell.workers, cellDefaults.workers),
    ...unlessDefault('--provider-window', cell.providerWindow, cellDefaults.providerWindow),
    ...unlessDefault('--limit-factor', String(cell.limitFactor), cellDefaults.limitFactor),
    ...(cell.minutes === undefined ? [] : ['--minutes', String(cell.minutes)]),
  ];
}
