import type { RecordedCall } from '../stack/rpc-proxy';

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
