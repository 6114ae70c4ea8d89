import { getAddress, isAddress } from 'viem';
import { ledgerAssetOf, nativeAsset, nativeUnits } from '../domain/asset';
import { chainOfBook, isNativeBook } from '../domain/ledger-book';
import {
  InvalidIntentError,
  OtherTenantError,
  UnknownAssetError,
  UnknownTenantError,
} from '../domain/errors';
import {
  bookLimitKeys,
  boundsAnything,
  type BookLimits,
  type PaymentPolicy,
  type RecipientEntry,
  type RecipientList,
} from '../domain/payment-policy';
import { listTokens, resolveAsset } from '../store/assets';
import {
  deleteRecipient,
  findRecipient,
  listRecipients,
  lockTenantPolicy,
  policyInForce,
  policyVersions,
  putRecipient,
  writePolicyVersion,
  type PolicyChange,
  type PolicyVersion,
} from '../store/policies';
import { findTenant } from '../store/tenants';
import type { Database } from '../store/database';
import type { Kysely } from 'kysely';
import type { Schema } from '../store/schema';
import { actorOf, type Caller } from './caller';
import type { ServiceDependencies } from './dependencies';

// Operators set a tenant's payment policy (domain/payment-policy.ts) here; every change is a new
// version that says who made it and what it was before. Tenants read their own.
export type Deps = Pick<ServiceDependencies, 'database' | 'clock'>;

/** A book's ceilings as the API shows them: the asset by its name, amounts in base units. */
export interface BookLimitsView {
  chainId: number;
  asset: string;
  decimals: number;
  maxPerIntent: string | null;
  perDay: string | null;
  perWeek: string | null;
  approvalThreshold: string | null;
}

export interface PolicyView {
  tenantId: string;
  version: number;
  limits: BookLimitsView[];
  allowListChains: number[];
}

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

export type Operator = Extract<Caller, { role: 'operator' }>;

/** A tenant's key reads only its own tenant's policy (403, as for its intents). */
export const ownTenantOnly = (caller: Caller, tenantId: string): void => {
  if (caller.role === 'tenant' && caller.tenantId !== tenantId) {
    throw new OtherTenantError(caller.tenantId, tenantId, 'the payment policy');
  }
};

export const invalid = (field: string, message: string) =>
  new InvalidIntentError([{ field, message }], 'policy change');

export async function existingTenant(database: Database, tenantId: string): Promise<void> {
  if (!(await findTenant(database.kysely, tenantId))) throw new UnknownTenantError(tenantId);
}

/** The tenant's policy in force (version 0 and no bounds: none set). */
export async function policyOf(
  { database }: Deps,
  caller: Caller,
  tenantId: string,
): Promise<PolicyView> {
  ownTenantOnly(caller, tenantId);
  await existingTenant(database, tenantId);
  return viewOf(database, await policyInForce(database.kysely, tenantId));
}

/** The changes to the tenant's policy, the latest first. */
export async function policyChanges(
  { database }: Deps,
  caller: Caller,
  tenantId: string,
  limit = 50,
): Promise<PolicyVersion[]> {
  ownTenantOnly(caller, tenantId);
  await existingTenant(database, tenantId);
  return policyVersions(database.kysely, tenantId, limit);
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

/** On `chainId`, only allow-listed recipients may be paid (true), or anyone not denied. */
export function setAllowListOnly(
  deps: Deps,
  caller: Operator,
  tenantId: string,
  chainId: number,
  allowListOnly: boolean,
): Promise<PolicyView> {
  return changePolicy(deps, caller, tenantId, (policy) => {
    const was = policy.allowListChains.includes(chainId);
    const others = policy.allowListChains.filter((chain) => chain !== chainId);
    return {
      next: { ...policy, allowListChains: allowListOnly ? [...others, chainId].sort() : others },
      change: {
        what: `recipients on chain ${chainId}`,
        before: was ? 'allow_list' : 'any',
        after: allowListOnly ? 'allow_list' : 'any',
      },
    };
  });
}

function recipientAddress(value: string): string {
  if (!isAddress(value, { strict: false }))
    throw invalid('address', `"${value}" is not an address`);
  return getAddress(value);
}

/** Puts a recipient on the tenant's allow- or deny-list for a chain (moved if on the other). */
export async function addRecipient(
  deps: Deps,
  caller: Operator,
  tenantId: string,
  entry: { chainId: number; address: string; list: RecipientList; label: string },
): Promise<RecipientEntry> {
  const added: RecipientEntry = { ...entry, address: recipientAddress(entry.address) };
  if (added.label.trim() === '') throw invalid('label', 'say who the recipient is');
  await changePolicy(deps, caller, tenantId, async (policy, trx) => {
    const before = await findRecipient(trx, tenantId, added.chainId, added.address);
    await putRecipient(trx, tenantId, added, now(deps));
    return {
      next: policy,
      change: {
        what: `recipient ${added.address} on chain ${added.chainId}`,
        before: before ?? null,
        after: added,
      },
    };
  });
  return added;
}

/** Takes a recipient off the tenant's lists for a chain; refused when it is on none. */
export async function removeRecipient(
  deps: Deps,
  caller: Operator,
  tenantId: string,
  chainId: number,
  address: string,
): Promise<void> {
  const removed = recipientAddress(address);
  await changePolicy(deps, caller, tenantId, async (policy, trx) => {
    const before = await findRecipient(trx, tenantId, chainId, removed);
    if (!before) {
      throw invalid(
        'address',
        `${removed} is on none of tenant ${tenantId}'s lists on chain ${chainId}`,
      );
    }
    await deleteRecipient(trx, tenantId, chainId, removed);
    return {
      next: policy,
      change: { what: `recipient ${removed} on chain ${chainId}`, before, after: null },
    };
  });
}

export async function recipientsOf(
  { database }: Deps,
  caller: Caller,
  tenantId: string,
  chainId?: number,
): Promise<RecipientEntry[]> {
  ownTenantOnly(caller, tenantId);
  await existingTenant(database, tenantId);
  return listRecipients(database.kysely, tenantId, chainId);
}

export const now = (deps: Deps): Date => deps.clock?.() ?? new Date();

/**
 * One change to a tenant's policy, under its policy lock: `edit` returns the next policy and
 * what changed, and the change is written as the next version with who made it.
 */
export async function changePolicy(
  deps: Deps,
  caller: Operator,
  tenantId: string,
  edit: (
    policy: PaymentPolicy,
    trx: Kysely<Schema>,
  ) =>
    | { next: PaymentPolicy; change: PolicyChange }
    | Promise<{ next: PaymentPolicy; change: PolicyChange }>,
): Promise<PolicyView> {
  const { database } = deps;
  const written = await database.transaction(async (trx) => {
    if (!(await findTenant(trx, tenantId))) throw new UnknownTenantError(tenantId);
    await lockTenantPolicy(database, trx, tenantId);
    const { next, change } = await edit(await policyInForce(trx, tenantId), trx);
    return writePolicyVersion(trx, next, actorOf(caller), change, now(deps));
  });
  return viewOf(database, written);
}

async function viewOf(database: Database, policy: PaymentPolicy): Promise<PolicyView> {
  const tokens = policy.limits.length > 0 ? await listTokens(database.kysely) : [];
  return {
    tenantId: policy.tenantId,
    version: policy.version,
    limits: policy.limits.map((limits) => {
      const token = tokens.find(
        (each) => ledgerAssetOf(each.chainId, each.address) === limits.book,
      );
      return {
        chainId: chainOfBook(limits.book)!,
        // Tokens are never unregistered: a book's token is always found.
        asset: isNativeBook(limits.book) ? nativeAsset : token!.alias,
        decimals: token?.decimals ?? nativeUnits.decimals,
        maxPerIntent: limits.maxPerIntent?.toString() ?? null,
        perDay: limits.perDay?.toString() ?? null,
        perWeek: limits.perWeek?.toString() ?? null,
        approvalThreshold: limits.approvalThreshold?.toString() ?? null,
      };
    }),
    allowListChains: policy.allowListChains,
  };
}
