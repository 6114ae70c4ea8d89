import { baseUnitsOf } from '../domain/asset';
import { wholeNumber } from './api-options';
import { decimalAmountProblem } from './decimal-amount';
import { badInput } from './exit-codes';

/** `--chain-id`, as the policy and contract-call commands take it. */
export const chainIdFlag = wholeNumber('--chain-id', 2 ** 31);

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
