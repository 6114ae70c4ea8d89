import { parse } from 'csv-parse/sync';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parseEther } from 'viem/utils';
import type { SubmitBody } from './api-client';
import { intentBodySchema } from '../domain/intent-request';
import { decimalAmountProblem } from './decimal-amount';
import { badInput } from './exit-codes';

export interface BatchFileRow {
  /** Where the row is: "line 7" in a CSV file, "item 3" in a JSON one. */
  where: string;
  item?: SubmitBody;
  problem?: string;
}

export interface BatchFile {
  rows: BatchFileRow[];
  /** Of the file's bytes: the default Idempotency-Key, so running the same file twice pays once. */
  sha256: string;
}

/**
 * Reads payouts from CSV (columns `to`; the amount as `amount` in base units, `amount_decimal` in
 * the asset's units, or `amount_eth`; optional `asset` — native or a token's alias — `from`,
 * `chain_id`, `max_fee_per_gas` in wei per gas, `reference` and `metadata.<key>`) or JSON (an
 * array, or `{ "items": [...] }`, of `{ to, amount | decimalAmount, asset?, from?, chainId?,
 * maxFeePerGas?, reference?, metadata? }`), and checks every row with the API's own rules, so a
 * bad row is reported before anything is sent. A decimal amount is converted by the API, which
 * knows each token's decimals (an amount with more digits than the token has refuses the batch by
 * item).
 */
export function readBatchFile(path: string, defaultChainId: number | undefined): BatchFile {
  let content: Buffer;
  try {
    content = readFileSync(path);
  } catch (error) {
    throw badInput(`cannot read ${path}: ${(error as Error).message}`);
  }
  const raw =
    extname(path).toLowerCase() === '.json' ? jsonRows(content) : csvRows(content, defaultChainId);
  return {
    sha256: createHash('sha256').update(content).digest('hex'),
    rows: raw.map(({ where, fields, problem }) =>
      problem ? { where, problem } : checkRow(where, fields, defaultChainId),
    ),
  };
}

type RawRow = { where: string; fields: Record<string, unknown>; problem?: string };

const amountColumns = ['amount', 'amount_decimal', 'amount_eth'];

/**
 * A CSV file's rows by line. What is wrong with its header is said once, for the whole file
 * (every row would repeat it); a row with more or fewer fields than the header is that row's
 * problem, and the others are still checked.
 */
function csvRows(content: Buffer, defaultChainId: number | undefined): RawRow[] {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    // csv-parse's declarations do not follow `info: true` into the records' type.
    records = parse(content, {
      skip_empty_lines: true,
      trim: true,
      info: true,
      relax_column_count: true,
    }) as unknown as typeof records;
  } catch (error) {
    throw badInput(`not a CSV file this tool can read: ${(error as Error).message}`);
  }
  const [header, ...rows] = records;
  if (!header) throw badInput('the file is empty: it needs a header line and a row per payout');
  // Names are read in any case; a metadata column's key keeps its own (keys are case-sensitive).
  const columns = header.record.map((name) => {
    const column = name.trim();
    const lower = column.toLowerCase();
    return lower.startsWith('metadata.') ? `metadata.${column.slice(9)}` : lower;
  });
  const missing = [
    ...(columns.includes('to') ? [] : ['no `to` column (the recipient)']),
    ...(amountColumns.some((column) => columns.includes(column))
      ? []
      : ['no amount column: amount (base units), amount_decimal or amount_eth']),
    ...(columns.includes('chain_id') || defaultChainId !== undefined
      ? []
      : ['no chain_id column and no --chain-id']),
  ];
  if (missing.length > 0) {
    // A spreadsheet set to another list separator writes the whole header as one column.
    const separator = columns.length === 1 ? /[;\t|]/.exec(columns[0]!)?.[0] : undefined;
    const hint = separator
      ? ` (its fields look separated by ${separator === '\t' ? 'tabs' : `"${separator}"`}: this tool reads commas; export the file as comma-separated CSV)`
      : '';
    throw badInput(
      `the header (line ${header.info.lines}: ${columns.join(', ')}) has ${missing.join('; ')}${hint}`,
    );
  }
  return rows.map(({ record, info }) => ({
    where: `line ${info.lines}`,
    fields: Object.fromEntries(columns.map((column, i) => [column, record[i]])),
    ...(record.length !== columns.length && {
      problem: `${record.length} fields where the header has ${columns.length}`,
    }),
  }));
}

function jsonRows(content: Buffer): RawRow[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content.toString());
  } catch (error) {
    throw badInput(`not valid JSON: ${(error as Error).message}`);
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { items?: unknown })?.items;
  if (!Array.isArray(list)) throw badInput('JSON must be an array of items or { "items": [...] }');
  return list.map((fields: unknown, i) => ({
    where: `item ${i + 1}`,
    fields:
      typeof fields === 'object' && fields !== null ? (fields as Record<string, unknown>) : {},
  }));
}

function checkRow(
  where: string,
  fields: Record<string, unknown>,
  defaultChainId: number | undefined,
): BatchFileRow {
  const chainField = fields.chain_id ?? fields.chainId;
  const chainId =
    chainField === undefined || chainField === '' ? defaultChainId : Number(chainField);
  if (chainId === undefined) return { where, problem: 'no chain_id column and no --chain-id' };
  const amounts = {
    amount: fields.amount,
    amount_decimal: fields.amount_decimal ?? fields.decimalAmount,
    amount_eth: fields.amount_eth,
  };
  const given = Object.entries(amounts).filter(([, value]) => value !== undefined && value !== '');
  if (given.length !== 1) {
    return {
      where,
      problem: 'give the amount once: amount (base units), amount_decimal or amount_eth',
    };
  }
  const asset =
    fields.asset === '' || fields.asset === undefined ? undefined : String(fields.asset);
  const [column, value] = given[0]! as [keyof typeof amounts, unknown];
  let amount: { amount: string } | { decimalAmount: string };
  if (column === 'amount_eth') {
    const eth = String(value);
    if (asset !== undefined && asset !== 'native') {
      return {
        where,
        problem: `amount_eth is for the native coin: give amount_decimal for ${asset}`,
      };
    }
    const problem = decimalAmountProblem(eth);
    if (problem) return { where, problem: `amount_eth: ${problem}` };
    amount = { amount: parseEther(eth).toString() };
  } else if (column === 'amount_decimal') {
    amount = { decimalAmount: String(value) };
  } else if (/^\d*\.\d+$/.test(String(value))) {
    return {
      where,
      problem: `amount is in base units (wei), whole numbers only: ${String(value)} looks like a decimal of the asset, which goes in an amount_decimal column (or amount_eth for the native coin)`,
    };
  } else {
    amount = { amount: String(value) };
  }
  // An empty `from` cell leaves the choice of wallet to the relayer, like an absent column.
  const from = fields.from === '' ? undefined : fields.from;
  const marks = callerReferenceOfRow(fields);
  const maxFeePerGas = ceilingOfRow(fields);
  const request = {
    chainId,
    from,
    to: fields.to,
    ...(asset && { asset }),
    ...amount,
    ...marks,
    ...(maxFeePerGas !== undefined && { maxFeePerGas }),
  };
  const parsed = intentBodySchema.safeParse(request);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) =>
      issue.path[0] === 'metadata' && issue.path.length > 1
        ? `metadata.${String(issue.path[1])}: ${issue.message}`
        : issue.message,
    );
    return { where, problem: problems.join('; ') };
  }
  return {
    where,
    item: {
      chainId,
      ...(parsed.data.from && { from: parsed.data.from }),
      to: parsed.data.to,
      ...(asset && { asset }),
      ...amount,
      ...marks,
      ...(maxFeePerGas !== undefined && { maxFeePerGas }),
    },
  };
}

/** A row's own fee ceiling (wei per gas), as the API takes it; an empty cell: none. */
function ceilingOfRow(fields: Record<string, unknown>): string | undefined {
  const ceiling = fields.max_fee_per_gas ?? fields.maxFeePerGas;
  return ceiling === undefined || ceiling === '' ? undefined : String(ceiling);
}

/**
 * A row's `reference` and its metadata: a JSON item's `metadata` object, or a CSV row's
 * `metadata.<key>` columns (an empty cell leaves its key out, as an empty `reference` does).
 */
function callerReferenceOfRow(fields: Record<string, unknown>) {
  const reference = fields.reference === '' ? undefined : fields.reference;
  const columns = Object.entries(fields).filter(
    ([column, value]) => column.startsWith('metadata.') && value !== '' && value !== undefined,
  );
  const metadata =
    fields.metadata ??
    (columns.length > 0
      ? Object.fromEntries(columns.map(([column, value]) => [column.slice(9), value]))
      : undefined);
  return {
    ...(reference !== undefined && { reference: reference as string }),
    ...(metadata !== undefined && { metadata: metadata as Record<string, string> }),
  };
}
