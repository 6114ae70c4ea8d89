import { SingleBar } from 'cli-progress';
import { stringify } from 'csv-stringify/sync';
import type { Command } from 'commander';
import { writeFileSync } from 'node:fs';
import { extname } from 'node:path';
import type { BatchItemResultView, BatchView, RelayerApiClient } from '../api-client';
import { table } from '../table';
import { readBatchFile } from '../batch-file';
import { badInput, CliFailure, ExitCode } from '../exit-codes';
import { print, type OutputOptions } from '../output';
import { chainIdFlag, priorityFlag, timeFlag, wholeNumber } from '../flags';
import type { IntentPriority } from '../../domain/intent-priority';

interface BatchFlags {
  chainId?: number;
  concurrency: number;
  mode: string;
  idempotencyKey?: string;
  skipInvalid?: boolean;
  validUntil?: string;
  notBefore?: string;
  priority?: IntentPriority;
  wait?: boolean;
  out?: string;
}

const mode = (value: string) => {
  if (value !== 'collect_all' && value !== 'fail_fast') {
    throw badInput(`--mode: must be collect_all or fail_fast (got "${value}")`);
  }
  return value;
};

/** Batch payouts from a CSV or JSON file, followed with a progress bar. */
export function addBatchCommands(
  program: Command,
  context: () => OutputOptions & { api(): RelayerApiClient },
): void {
  const batch = program.command('batch').description('batch payouts from a CSV or JSON file');
  addSubmitBatchCommand(batch, context);
  addStatusBatchCommand(batch, context);
  addResultsBatchCommand(batch, context);
  addCancelBatchCommand(batch, context);
  addBatchApprovalCommands(batch, context);
}

function addSubmitBatchCommand(
  batch: Command,
  context: () => OutputOptions & { api(): RelayerApiClient },
): void {
  batch
    .command('submit <file>')
    .description('check every row, then submit them as one batch (nothing is sent if a row is bad)')
    .option('--chain-id <id>', 'for rows without a chain_id column', chainIdFlag)
    .option('--concurrency <n>', 'items running at once', wholeNumber('--concurrency', 200), 8)
    .option('--mode <mode>', 'collect_all (every item runs) or fail_fast', mode, 'collect_all')
    .option('--idempotency-key <key>', 'default: derived from the file, so a rerun pays once')
    .option('--skip-invalid', 'submit the valid rows and list the bad ones instead of refusing')
    .option(
      '--valid-until <time>',
      'no item sent after this: a time (2026-12-31T17:00:00Z) or a span from now (30m, 2h)',
      timeFlag('--valid-until'),
    )
    .option(
      '--not-before <time>',
      'no item sent before this (as --valid-until)',
      timeFlag('--not-before'),
    )
    .option('--priority <level>', "its items': bulk (default), normal or urgent", priorityFlag)
    .option('--wait', 'follow the batch to its end with a progress bar')
    .option('--out <file>', 'with --wait: write the per-item results (.csv or .json)')
    .action(async (file: string, flags: BatchFlags) => {
      const options = context();
      const parsed = readBatchFile(file, flags.chainId);
      const bad = parsed.rows.filter((row) => row.problem);
      if (bad.length > 0) {
        const list = table(['where', 'problem'], ['left', 'left']);
        for (const row of bad) list.push([row.where, row.problem!]);
        console.error(list.toString());
        if (!flags.skipInvalid) {
          throw badInput(
            `${bad.length} of ${parsed.rows.length} rows are invalid: nothing was submitted ` +
              '(fix them, or pass --skip-invalid to submit the others)',
          );
        }
        console.error(`skipping ${bad.length} invalid rows`);
      }
      const items = parsed.rows.flatMap((row) => (row.item ? [row.item] : []));
      if (items.length === 0) throw badInput('no valid rows to submit');
      const api = options.api();
      const key = flags.idempotencyKey ?? `file-${parsed.sha256.slice(0, 32)}`;
      const { status, body } = await api.submitBatch(
        {
          items,
          concurrency: flags.concurrency,
          mode: flags.mode as 'collect_all' | 'fail_fast',
          ...(flags.validUntil !== undefined && { validUntil: flags.validUntil }),
          ...(flags.notBefore !== undefined && { notBefore: flags.notBefore }),
          ...(flags.priority !== undefined && { priority: flags.priority }),
        },
        key,
      );
      if (!options.json) {
        console.error(
          `${status === 200 ? 'already submitted' : 'submitted'} batch ${body.id}: ` +
            `${body.itemCount} items, ${body.concurrency} at once, ${body.mode} (key ${key})`,
        );
      }
      if (!flags.wait) return print(options, body, () => batchTable(body));
      await finish(api, body.id, options, flags.out);
    });
}

function addStatusBatchCommand(
  batch: Command,
  context: () => OutputOptions & { api(): RelayerApiClient },
): void {
  batch
    .command('status <batchId>')
    .description('a batch and its items counted by status')
    .option('--wait', 'follow it to its end with a progress bar')
    .option('--out <file>', 'with --wait: write the per-item results (.csv or .json)')
    .action(async (batchId: string, flags: { wait?: boolean; out?: string }) => {
      const options = context();
      const api = options.api();
      if (flags.wait) return finish(api, batchId, options, flags.out);
      const view = await api.getBatch(batchId);
      print(options, view, () => batchTable(view));
    });
}

function addResultsBatchCommand(
  batch: Command,
  context: () => OutputOptions & { api(): RelayerApiClient },
): void {
  batch
    .command('results <batchId>')
    .description('per-item results in input order')
    .option('--out <file>', 'write them to a .csv or .json file instead')
    .action(async (batchId: string, flags: { out?: string }) => {
      const options = context();
      const results = await options.api().batchResults(batchId);
      if (flags.out) return writeResults(flags.out, results);
      print(options, results, () => resultsTable(results));
    });
}

function addCancelBatchCommand(
  batch: Command,
  context: () => OutputOptions & { api(): RelayerApiClient },
): void {
  batch
    .command('cancel <batchId>')
    .description('nothing more starts; unsigned items are cancelled, signed ones run to their end')
    .option('--reason <text>', 'kept as the batch’s cause')
    .action(async (batchId: string, flags: { reason?: string }) => {
      const options = context();
      const view = await options.api().cancelBatch(batchId, flags.reason);
      print(options, view, () => `cancel requested\n${batchTable(view)}`);
    });
}

/** `batch approve` and `batch reject`: the second key's decision on a batch awaiting approval. */
function addBatchApprovalCommands(
  batch: Command,
  context: () => OutputOptions & { api(): RelayerApiClient },
): void {
  for (const [decision, description] of [
    ['approve', 'approve a batch awaiting approval, once for all its items (another key)'],
    ['reject', 'reject a batch awaiting approval: none of its items starts'],
  ] as const) {
    batch
      .command(`${decision} <batchId>`)
      .description(description)
      .option('--note <text>', 'why, kept with the decision')
      .action(async (batchId: string, flags: { note?: string }) => {
        const options = context();
        const view = await options.api().decideBatchApproval(batchId, decision, flags.note);
        print(options, view, () => batchTable(view));
      });
  }
}

const ended = (view: BatchView) =>
  Object.entries(view.counts)
    .filter(
      ([status]) =>
        !['pending', 'running', 'authorized', 'settling', 'held', 'signed', 'confirming'].includes(
          status,
        ),
    )
    .reduce((sum, [, count]) => sum + count, 0);

async function finish(
  api: RelayerApiClient,
  batchId: string,
  options: OutputOptions,
  out: string | undefined,
): Promise<void> {
  const bar = new SingleBar({
    format: '  batch |{bar}| {value}/{total} ended · confirmed {confirmed} · other {other}',
    stream: process.stderr,
    noTTYOutput: true,
    notTTYSchedule: 5000,
    hideCursor: true,
  });
  let view = await api.getBatch(batchId);
  if (!options.json) bar.start(view.itemCount, 0, { confirmed: 0, other: 0 });
  for (;;) {
    const done = ended(view);
    const confirmed = view.counts.confirmed ?? 0;
    if (!options.json) bar.update(done, { confirmed, other: done - confirmed });
    if (view.status !== 'running' && done === view.itemCount) break;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    view = await api.getBatch(batchId);
  }
  if (!options.json) bar.stop();
  const results = await api.batchResults(batchId);
  if (out) writeResults(out, results);
  print(options, { batch: view, results }, () => batchTable(view));
  if ((view.counts.confirmed ?? 0) !== view.itemCount) {
    throw new CliFailure(
      view.status,
      `batch ${batchId} ended ${view.status}: ${view.itemCount - (view.counts.confirmed ?? 0)} items not confirmed`,
      ExitCode.notConfirmed,
    );
  }
}

function batchTable(view: BatchView): string {
  const rows = table(['batch', view.id], ['left', 'left']);
  rows.push(
    ['status', view.status + (view.cause ? ` (${view.causeCode}: ${view.cause})` : '')],
    ['items', `${view.itemCount}, ${view.concurrency} at once, ${view.mode}`],
    ...Object.entries(view.counts).map(([status, count]) => [`  ${status}`, String(count)]),
  );
  return rows.toString();
}

function resultsTable(results: BatchItemResultView[]): string {
  const rows = table(
    ['#', 'reference', 'status', 'intent', 'tx', 'error'],
    ['right', 'left', 'left', 'left', 'left', 'left'],
  );
  for (const r of results) {
    rows.push([
      String(r.index),
      r.reference ?? '',
      r.status,
      r.intentId ?? '',
      r.txHash ?? '',
      r.errorCode ?? r.reason ?? '',
    ]);
  }
  return rows.toString();
}

function writeResults(path: string, results: BatchItemResultView[]): void {
  if (extname(path).toLowerCase() === '.json') {
    writeFileSync(path, `${JSON.stringify(results, null, 2)}\n`);
  } else {
    // The metadata's keys as the batch file's columns, in the order they first appear.
    const keys = [...new Set(results.flatMap((r) => Object.keys(r.metadata ?? {})))];
    const csv = stringify(
      results.map((r) => [
        r.index,
        r.status,
        r.intentId,
        r.txHash,
        r.errorCode,
        r.reasonCode,
        r.reason,
        r.reference,
        ...keys.map((key) => r.metadata?.[key] ?? ''),
      ]),
      {
        header: true,
        columns: [
          ...['index', 'status', 'intent_id', 'tx_hash', 'error_code', 'reason_code', 'reason'],
          'reference',
          ...keys.map((key) => `metadata.${key}`),
        ],
      },
    );
    writeFileSync(path, csv);
  }
  console.error(`wrote ${results.length} results to ${path}`);
}
