import type { Command } from 'commander';
import { createHash } from 'node:crypto';
import type { BackfillView, ScheduleBody, ScheduleView } from '../api-client/schedules';
import { apiOf, type ApiOptions } from '../api-options';
import { badInput } from '../exit-codes';
import { decimalAmountProblem } from '../decimal-amount';
import { chainIdFlag, etherFlag, pastTimeFlag, timeFlag } from '../flags';
import { print } from '../output';
import { table } from '../table';

interface CreateFlags {
  chainId: number;
  from?: string;
  to: string;
  asset?: string;
  amount?: string;
  eth?: bigint;
  wei?: string;
  every?: string;
  cron?: string;
  timezone?: string;
  startAt?: string;
  endAt?: string;
  catchupWindow?: string;
  validFor?: string;
  note?: string;
  idempotencyKey?: string;
}

const whenOf = (schedule: ScheduleView) =>
  schedule.every !== undefined ? `every ${schedule.every}` : `cron "${schedule.cron}"`;

function scheduleTable(schedules: readonly ScheduleView[]): string {
  const rows = table(
    ['id', 'tenant', 'state', 'when', 'timezone', 'chain', 'to', 'asset', 'amount'],
    ['left', 'left', 'left', 'left', 'left', 'right', 'left', 'left', 'right'],
  );
  for (const schedule of schedules) {
    const { payment } = schedule;
    const { chainId, to, asset } = payment;
    rows.push([
      schedule.id,
      schedule.tenantId,
      schedule.state,
      whenOf(schedule),
      schedule.timezone,
      String(chainId),
      to,
      asset === 'native' ? 'ETH' : asset,
      payment.decimalAmount,
    ]);
  }
  return rows.toString();
}

function scheduleDetails(schedule: ScheduleView): string {
  const lines = [scheduleTable([schedule])];
  const next = schedule.nextTimes ?? [];
  if (schedule.pauseNote) lines.push(`paused: ${schedule.pauseNote}`);
  lines.push(next.length ? `next: ${next.slice(0, 3).join(', ')}` : 'next: none');
  const occurrences = schedule.occurrences ?? [];
  if (occurrences.length > 0) {
    const rows = table(['occurrence', 'outcome', 'intent or refusal'], ['left', 'left', 'left']);
    for (const o of occurrences) {
      rows.push([o.occurrenceAt, o.outcome, o.intentId ?? `${o.code ?? ''} ${o.message ?? ''}`]);
    }
    lines.push(rows.toString());
  }
  return lines.join('\n');
}

/** The amount as the API takes it: base units, or a decimal of the asset the API converts. */
function amountOf(flags: CreateFlags): { amount: string } | { decimalAmount: string } {
  const given = [flags.amount, flags.eth, flags.wei].filter((flag) => flag !== undefined);
  if (given.length !== 1)
    throw badInput('give the amount once: --amount <decimal>, --eth <ether> or --wei <base units>');
  if (flags.eth !== undefined && flags.asset !== undefined && flags.asset !== 'native')
    throw badInput(`--eth is for the native coin: give --amount for ${flags.asset}`);
  if (flags.amount !== undefined) {
    // A token's own decimals are the API's to check: it knows the asset.
    const problem = decimalAmountProblem(flags.amount, Infinity);
    if (problem) throw badInput(`--amount: ${problem}`);
    return { decimalAmount: flags.amount };
  }
  return { amount: flags.wei ?? flags.eth!.toString() };
}

/**
 * The key a schedule is created under unless one is given: derived from what it pays and when,
 * so the same command run twice (a script re-run, a retry after a timeout) is one schedule.
 */
const contentKey = (body: ScheduleBody): string =>
  `schedule-${createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 32)}`;

function backfillTable(result: BackfillView): string {
  const rows = table(['occurrence', 'outcome', 'intent or reason'], ['left', 'left', 'left']);
  for (const o of result.occurrences) {
    const outcome = o.outcome === 'admitted' && !o.ranNow ? 'already admitted' : o.outcome;
    rows.push([o.occurrenceAt, outcome, o.intentId ?? `${o.code ?? ''} ${o.message ?? ''}`]);
  }
  const counted = Object.entries(result.counts)
    .filter(([, count]) => count > 0)
    .map(([outcome, count]) => `${count} ${outcome}`);
  return [
    result.occurrences.length === 0 ? 'no occurrence falls in the range' : rows.toString(),
    counted.length ? counted.join(', ') : '',
  ].join('\n');
}

/** A tenant's recurring payments: each occurrence an intent, timed by a Temporal Schedule. */
export function addScheduleCommands(program: Command, api: () => ApiOptions): void {
  const schedules = program
    .command('schedules')
    .description('recurring payments: each occurrence is an intent, paid once');
  addCreateScheduleCommand(schedules, api);
  addListScheduleCommand(schedules, api);
  addShowScheduleCommand(schedules, api);
  addBackfillScheduleCommand(api, schedules);
  addDeleteScheduleCommand(schedules, api);
}

function addCreateScheduleCommand(schedules: Command, api: () => ApiOptions): void {
  schedules
    .command('create')
    .description('tenant key: pay --to every span (--every 1d) or by calendar (--cron "0 9 1 * *")')
    .requiredOption('--chain-id <id>', 'EVM chain id', chainIdFlag)
    .option('--from <address>', 'hot wallet to send from (default: the relayer chooses one)')
    .requiredOption('--to <address>', 'recipient')
    .option('--asset <alias>', 'native (default) or a registered token, e.g. USDC')
    .option('--amount <decimal>', "amount in the asset's units, e.g. 2500 (of USDC)")
    .option('--eth <amount>', 'amount in ether (native), e.g. 0.25', etherFlag('--eth'))
    .option('--wei <amount>', 'amount in base units (wei, or the token’s smallest unit)')
    .option('--every <span>', 'every 90m, 12h, 7d (counted from --start-at, else midnight UTC)')
    .option('--cron <fields>', 'five cron fields read in --timezone, e.g. "0 9 1 * *"')
    .option('--timezone <name>', 'IANA time zone of --cron (default UTC), e.g. Europe/Berlin')
    .option(
      '--start-at <time>',
      'no occurrence before it (a time, or a span from now)',
      timeFlag('--start-at'),
    )
    .option('--end-at <time>', 'no occurrence after it (as --start-at)', timeFlag('--end-at'))
    .option('--catchup-window <span>', 'how late a missed occurrence still runs (default 1h)')
    .option('--valid-for <span>', "each occurrence's deadline: its time plus this")
    .option('--note <text>', 'what it is for')
    .option(
      '--idempotency-key <key>',
      'your name for this schedule (default: derived from what it pays and when, so a rerun makes no second)',
    )
    .action(async (flags: CreateFlags) => {
      const options = api();
      const optional = {
        from: flags.from,
        asset: flags.asset,
      };
      const timing = {
        every: flags.every,
        cron: flags.cron,
        timezone: flags.timezone,
        startAt: flags.startAt,
        endAt: flags.endAt,
        catchupWindow: flags.catchupWindow,
        validFor: flags.validFor,
        note: flags.note,
      };
      const given = <T extends object>(fields: T) =>
        Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
      const request: ScheduleBody = {
        payment: { chainId: flags.chainId, to: flags.to, ...amountOf(flags), ...given(optional) },
        ...given(timing),
      };
      const key = flags.idempotencyKey ?? contentKey(request);
      const { status, body } = await apiOf(options).createSchedule(request, key);
      print(options, body, () =>
        [
          status === 200
            ? `already created under key ${key} (the same command before): nothing new`
            : `created (key ${key}):`,
          scheduleTable([body]),
        ].join('\n'),
      );
    });
}

function addListScheduleCommand(schedules: Command, api: () => ApiOptions): void {
  schedules
    .command('list')
    .description('the payment schedules, newest first (a tenant key: its own)')
    .action(async () => {
      const options = api();
      const found = await apiOf(options).schedules();
      print(options, found, () => (found.length === 0 ? 'no schedules' : scheduleTable(found)));
    });
}

function addShowScheduleCommand(schedules: Command, api: () => ApiOptions): void {
  schedules
    .command('show <id>')
    .description('one schedule: its next times and what its latest occurrences became')
    .action(async (id: string) => {
      const options = api();
      const schedule = await apiOf(options).getSchedule(id);
      print(options, schedule, () => scheduleDetails(schedule));
    });
}

function addBackfillScheduleCommand(api: () => ApiOptions, schedules: Command): void {
  for (const [action, paused] of [
    ['pause', true],
    ['resume', false],
  ] as const) {
    schedules
      .command(`${action} <id>`)
      .description(
        paused
          ? 'no occurrence runs until resumed'
          : 'occurrences run again from the next one (backfill those missed)',
      )
      .option('--note <text>', 'why')
      .action(async (id: string, flags: { note?: string }) => {
        const options = api();
        const client = apiOf(options);
        const schedule = await (paused ? client.pauseSchedule : client.resumeSchedule).call(
          client,
          id,
          flags.note,
        );
        print(options, schedule, () => `${schedule.id} is ${schedule.state}`);
      });
  }
  schedules
    .command('backfill <id>')
    .description('run the occurrences between --from and --to now; each is paid once')
    .requiredOption(
      '--from <time>',
      'a time, e.g. 2026-11-01T00:00:00Z, or a span ago (2h)',
      pastTimeFlag('--from'),
    )
    .requiredOption('--to <time>', 'a past time, or a span ago (30m)', pastTimeFlag('--to'))
    .option('--before-start', "also pay times before the schedule's start (refused otherwise)")
    .action(async (id: string, flags: { from: string; to: string; beforeStart?: boolean }) => {
      const options = api();
      const result = await apiOf(options).backfillSchedule(id, {
        from: flags.from,
        to: flags.to,
        ...(flags.beforeStart && { beforeStart: true }),
      });
      print(options, result, () => backfillTable(result));
    });
}

function addDeleteScheduleCommand(schedules: Command, api: () => ApiOptions): void {
  schedules
    .command('delete <id>')
    .description('no occurrence runs again; intents already admitted go on')
    .action(async (id: string) => {
      const options = api();
      await apiOf(options).deleteSchedule(id);
      print(options, { id, deleted: true }, () => `deleted ${id}`);
    });
}
