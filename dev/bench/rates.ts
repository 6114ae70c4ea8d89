import type { RecordedCall } from '../../test/harness/stack/rpc-proxy';

/** Sends per second between the 10th and the 90th percentile send: no ramp-up, no tail. */
export function steadyRate(sends: RecordedCall[]): number {
  const starts = sends.map((call) => call.startedAt).sort((a, b) => a - b);
  const from = Math.floor(starts.length * 0.1);
  const to = Math.ceil(starts.length * 0.9) - 1;
  return ((to - from) / (starts[to]! - starts[from]!)) * 1000;
}

export const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;

/** Units per second of `calls` (each by its method's units) between the 10th and 90th percentile call. */
export function steadyUnitsRate(
  calls: RecordedCall[],
  unitsOf: (method: string) => number,
): number {
  const sorted = [...calls].sort((a, b) => a.startedAt - b.startedAt);
  const from = Math.floor(sorted.length * 0.1);
  const to = Math.ceil(sorted.length * 0.9) - 1;
  if (to <= from) return 0;
  let units = 0;
  for (let i = from; i < to; i++) units += unitsOf(sorted[i]!.method);
  return (units / (sorted[to]!.startedAt - sorted[from]!.startedAt)) * 1000;
}

/**
 * What `calls` the provider accepted between `from` and `to` (ms of the proxy's log; `to` may be
 * Infinity: the last call) used per second of `limit`, each by its units; undefined without a
 * limit, or over less than 10 s.
 */
export function usedAfter(
  calls: RecordedCall[],
  unitsOf: (method: string) => number,
  { from, to }: { from: number; to: number },
  limit: number | undefined,
): number | undefined {
  const last = calls.reduce((latest, call) => Math.max(latest, call.startedAt), 0);
  const until = Math.min(to, last);
  if (limit === undefined || until - from < 10_000) return undefined;
  let units = 0;
  for (const call of calls) {
    if (call.refused === undefined && call.startedAt >= from && call.startedAt < until) {
      units += unitsOf(call.method);
    }
  }
  return units / ((until - from) / 1000) / limit;
}

/**
 * The accepted calls from 10% to 80% of the run's span (the start's burst and the tail's
 * receipts left out), and that stretch's length in ms.
 */
export function midRun(calls: RecordedCall[]): { calls: RecordedCall[]; ms: number } {
  let [first, last] = [Infinity, -Infinity];
  for (const call of calls)
    [first, last] = [Math.min(first, call.startedAt), Math.max(last, call.startedAt)];
  const span = last - first;
  const [from, to] = [first + 0.1 * span, first + 0.8 * span];
  const inside = calls.filter(
    (call) => call.refused === undefined && call.startedAt >= from && call.startedAt < to,
  );
  return { calls: inside, ms: to - from };
}

/**
 * What the provider accepted in the run's `slice` (midRun: the 10th to the 80th percentile second
 * of the run), per second of `quota`, each call by its units: the quota's use with the ramp-up
 * and the tail left out. Undefined without a quota.
 */
export function usedMidRun(
  slice: { calls: RecordedCall[]; ms: number },
  unitsOf: (method: string) => number,
  quota: number | undefined,
): number | undefined {
  if (quota === undefined || !(slice.ms > 0)) return undefined;
  const units = slice.calls.reduce((sum, call) => sum + unitsOf(call.method), 0);
  return units / (slice.ms / 1000) / quota;
}
