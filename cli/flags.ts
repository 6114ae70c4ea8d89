import {
  fairnessWeightRange,
  intentPriorities,
  type IntentPriority,
} from '../domain/intent-priority';
import { parseEther, parseGwei } from 'viem/utils';
import { baseUnitsOf } from '../domain/asset';
import { isoInstant } from '../domain/intent-deadlines';
import { tenantIdSchema } from '../domain/intent-request';
import { decimalAmountProblem } from './decimal-amount';
import { badInput } from './exit-codes';

// Every command's flag parsers: a bad value is a usage error naming the flag, before any work.

/** A whole number from 1 (to `max`, when given). */
export const wholeNumber = (flag: string, max?: number) => (value: string) => {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < 1 || (max !== undefined && number > max)) {
    const range = max === undefined ? 'from 1' : `from 1 to ${max}`;
    throw badInput(`${flag}: must be a whole number ${range} (got "${value}")`);
  }
  return number;
};

/** `--fairness-weight`: a decimal in Temporal's range of weights, or `default` (1). */
export const fairnessWeightFlag = (value: string): number | null => {
  if (value === 'default') return null;
  const { min, max } = fairnessWeightRange;
  const weight = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || weight < min || weight > max) {
    throw badInput(
      `--fairness-weight: must be a decimal from ${min} to ${max}, or "default" (got "${value}")`,
    );
  }
  return weight;
};

/** `--chain-id`: an EVM chain id. */
export const chainIdFlag = wholeNumber('--chain-id', 2 ** 31);

/** An amount of ether as a person types it, in wei. */
export const etherFlag = (flag: string) => (value: string) => {
  const problem = decimalAmountProblem(value);
  if (problem) throw badInput(`${flag}: ${problem}`);
  return parseEther(value);
};

/** A fee per gas as a person types it, in gwei (e.g. 30 or 1.5), to wei per gas. */
export const gweiFlag = (flag: string) => (value: string) => {
  const problem = decimalAmountProblem(value);
  if (problem) throw badInput(`${flag}: ${problem}`);
  return parseGwei(value);
};

/** A tenant's id, as the API takes it. */
export const tenantIdFlag = (value: string) => {
  const parsed = tenantIdSchema.safeParse(value);
  if (!parsed.success) throw badInput(`tenant: ${parsed.error.issues[0]!.message}`);
  return parsed.data;
};

/** A bound as a person types it (a decimal of the asset, or `none` to remove it) in base units. */
export function baseUnits(
  flag: string,
  value: string | undefined,
  decimals: number,
  zeroAllowed = false,
): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'none') return null;
  if (zeroAllowed && /^0+(\.0*)?$/.test(value)) return '0';
  const problem = decimalAmountProblem(value, decimals);
  if (problem) throw badInput(`${flag}: ${problem}`);
  return baseUnitsOf(value, decimals)!.toString();
}

const unitMs = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** urgent, normal or bulk (domain/intent-priority.ts). */
export const priorityFlag = (value: string): IntentPriority => {
  if (!(intentPriorities as readonly string[]).includes(value)) {
    throw badInput(`--priority: urgent, normal or bulk (got "${value}")`);
  }
  return value as IntentPriority;
};

/**
 * A time as an ISO 8601 string: typed as one, or as a span from now (`90s`, `30m`, `2h`, `1d`) —
 * ahead of now, or (`ago`, for flags that name past times) before it.
 */
export const timeFlag =
  (flag: string, now: () => Date = () => new Date(), { ago = false } = {}) =>
  (value: string): string => {
    const span = /^(\d+)([smhd])$/.exec(value);
    if (span) {
      const ms = Number(span[1]) * unitMs[span[2] as keyof typeof unitMs];
      return new Date(now().getTime() + (ago ? -ms : ms)).toISOString();
    }
    if (isoInstant(flag).safeParse(value).success) return value;
    throw badInput(
      `${flag}: a time with its offset (e.g. 2026-12-31T17:00:00Z) or a span ${ago ? 'ago' : 'from now'} (30m, 2h, 1d); got "${value}"`,
    );
  };

/** A past time: typed, or a span ago (`--from 2h` is two hours ago). */
export const pastTimeFlag = (flag: string) => timeFlag(flag, undefined, { ago: true });

/** `on` or `off`, as a switch of a setting is given. */
export const onOffFlag = (flag: string) => (value: string) => {
  if (value === 'on' || value === 'off') return value === 'on';
  throw badInput(`${flag} must be on or off (got "${value}")`);
};
