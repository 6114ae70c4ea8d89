import type { Command } from 'commander';
import { randomUUID } from 'node:crypto';
import type { ScheduleView } from '../api-client/schedules';
import { apiOf, type ApiOptions } from '../api-options';
import { badInput } from '../exit-codes';
import { chainIdFlag, etherFlag, timeFlag } from '../flags';
import { print } from '../output';
import { table } from '../table';

interface CreateFlags {
  chainId: number;
  from?: string;
  to: string;
  asset?: string;
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
    const { chainId, to, asset, amount } = schedule.payment;
    rows.push([
      schedule.id,
      schedule.tenantId,
      schedule.state,
      whenOf(schedule),
      schedule.timezone,
      String(chainId),
      to,
      asset,
      amount,
    ]);
  }
  return rows.toString();
}

function scheduleDetails(schedule: ScheduleView): string {
  const lines = [scheduleTable([schedule])];
  const next = schedule.nextTimes ?? [];
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

function amountOf(flags: CreateFlags): string {
  if ((flags.eth === undefined) === (flags.wei === undefined))
    throw badInput('give the amount once: --eth <ether> (native) or --wei <base units>');
  if (flags.eth !== undefined && flags.asset !== undefined && flags.asset !== 'native')
    throw badInput(`--eth is for the native coin: give --wei (base units) for ${flags.asset}`);
  return flags.wei ?? flags.eth!.toString();
}

/** A tenant's recurring payments: each occurrence an intent, timed by a Temporal Schedule. */
export function addScheduleCommands(program: Command, api: () => ApiOptions): void {
  const schedules = program
    .command('schedules')
    .description('recurring payments: each occurrence is an intent, paid once');
  schedules
    .command('create')
    .description('tenant key: pay --to every span (--every 1d) or by calendar (--cron "0 9 1 * *")')
    .requiredOption('--chain-id <id>', 'EVM chain id', chainIdFlag)
    .option('--from <address>', 'hot wallet to send from (default: the relayer chooses one)')
    .requiredOption('--to <address>', 'recipient')
    .option('--asset <alias>', 'native (default) or a registered token, e.g. USDC')
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
    .option('--idempotency-key <key>', 'your name for this schedule (default: a new UUID)')
    .action(async (flags: CreateFlags) => {
      const options = api();
      const key = flags.idempotencyKey ?? randomUUID();
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
      const { status, body } = await apiOf(options).createSchedule(
        {
          payment: {
            chainId: flags.chainId,
            to: flags.to,
            amount: amountOf(flags),
            ...given(optional),
          },
          ...given(timing),
        },
        key,
      );
      print(options, body, () =>
        [
          status === 200 ? `already created under key ${key}:` : `created (key ${key}):`,
          scheduleTable([body]),
        ].join('\n'),
      );
    });
  schedules
    .command('list')
    .description('the payment schedules, newest first (a tenant key: its own)')
    .action(async () => {
      const options = api();
      const found = await apiOf(options).schedules();
      print(options, found, () => (found.length === 0 ? 'no schedules' : scheduleTable(found)));
    });
  schedules
    .command('show <id>')
    .description('one schedule: its next times and what its latest occurrences became')
    .action(async (id: string) => {
      const options = api();
      const schedule = await apiOf(options).getSchedule(id);
      print(options, schedule, () => scheduleDetails(schedule));
    });
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
    .requiredOption('--from <time>', 'a time, e.g. 2026-11-01T00:00:00Z', timeFlag('--from'))
    .requiredOption('--to <time>', 'a time (past)', timeFlag('--to'))
    .action(async (id: string, flags: { from: string; to: string }) => {
      const options = api();
      await apiOf(options).backfillSchedule(id, flags);
      print(options, { id, ...flags }, () => `backfilling ${id} from ${flags.from} to ${flags.to}`);
    });
  schedules
    .command('delete <id>')
    .description('no occurrence runs again; intents already admitted go on')
    .action(async (id: string) => {
      const options = api();
      await apiOf(options).deleteSchedule(id);
      print(options, { id, deleted: true }, () => `deleted ${id}`);
    });
}
