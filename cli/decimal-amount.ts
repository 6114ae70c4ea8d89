import { plainDecimal } from '../domain/plain-decimal';

/**
 * What is wrong with `value` as a decimal amount a person typed (`25`, `0.5`), in their words;
 * undefined when it is fine. `decimals`: the most fractional digits its asset has.
 */
export function decimalAmountProblem(value: string, decimals = 18): string | undefined {
  const text = value.trim();
  if (/^-\s*\d*\.?\d+$/.test(text)) return `must be positive (got "${value}")`;
  if (!plainDecimal.test(text)) return `must be a decimal amount like 25 or 0.5 (got "${value}")`;
  if (/^0+(\.0+)?$/.test(text)) return `must be positive (got "${value}")`;
  if ((text.split('.')[1]?.length ?? 0) > decimals) {
    return `at most ${decimals} decimals (got "${value}")`;
  }
  return undefined;
}
