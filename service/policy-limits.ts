import { ledgerAssetOf, nativeAsset } from '../domain/asset';
import { UnknownAssetError } from '../domain/errors';
import { bookLimitKeys, boundsAnything, type BookLimits } from '../domain/payment-policy';
import { resolveAsset } from '../store/assets';
import { changePolicy, invalid, type Deps, type Operator, type PolicyView } from './policies';

// A book's ceilings: the most per intent, per rolling day and week, and the approval threshold.

export interface BookLimitsChange {
  chainId: number;
  /** `native` (the default), or a registered token's alias or address. */
  asset?: string;
  /** Base units; null removes the bound, absent leaves it as it is. */
  maxPerIntent?: bigint | null;
  perDay?: bigint | null;
  perWeek?: bigint | null;
  approvalThreshold?: bigint | null;
}

/**
 * Sets the ceilings of one book (an asset on a chain): each given bound replaced, null ones
 * removed. Refused, with nothing written, for an unknown asset and for bounds that contradict
 * each other (one intent above a day's limit, a day above a week's).
 */
export async function setBookLimits(
  deps: Deps,
  caller: Operator,
  tenantId: string,
  change: BookLimitsChange,
): Promise<PolicyView> {
  const { database } = deps;
  const resolved = await resolveAsset(database.kysely, change.chainId, change.asset ?? nativeAsset);
  if (!resolved) throw new UnknownAssetError(change.chainId, change.asset ?? nativeAsset);
  const book = ledgerAssetOf(change.chainId, resolved.ref);
  return changePolicy(deps, caller, tenantId, (policy) => {
    const before = policy.limits.find((limits) => limits.book === book);
    const after: BookLimits = { ...before, book };
    for (const key of bookLimitKeys) {
      const value = change[key];
      if (value === null) delete after[key];
      else if (value !== undefined) after[key] = value;
    }
    consistentBounds(after);
    const others = policy.limits.filter((limits) => limits.book !== book);
    return {
      next: { ...policy, limits: boundsAnything(after) ? [...others, after] : others },
      change: { what: `limits of ${book}`, before: before ?? null, after },
    };
  });
}

function consistentBounds(limits: BookLimits): void {
  const order = [
    ['maxPerIntent', 'perDay'],
    ['maxPerIntent', 'perWeek'],
    ['perDay', 'perWeek'],
    ['approvalThreshold', 'maxPerIntent'],
  ] as const;
  for (const [lower, higher] of order) {
    const [low, high] = [limits[lower], limits[higher]];
    if (low !== undefined && high !== undefined && low > high) {
      throw invalid(
        lower,
        `${lower} (${low}) is above ${higher} (${high}): it could never be reached`,
      );
    }
  }
  for (const key of bookLimitKeys) {
    if (limits[key] === 0n) throw invalid(key, 'must be above 0 (null removes the bound)');
  }
}
