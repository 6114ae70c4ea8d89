import { getAddress, isAddress } from 'viem';
import type { Kysely } from 'kysely';
import { ledgerAssetOf, nativeAsset, nativeUnits } from '../domain/asset';
import { chainOfBook, isNativeBook } from '../domain/ledger-book';
import { InvalidIntentError, OtherTenantError, UnknownTenantError } from '../domain/errors';
import type { PaymentPolicy } from '../domain/payment-policy';
import type { Hex } from '../domain/transfer';
import { listTokens } from '../store/assets';
import type { Database } from '../store/database';
import {
  lockTenantPolicy,
  policyInForce,
  policyVersions,
  writePolicyVersion,
  type PolicyChange,
  type PolicyVersion,
} from '../store/policies';
import type { Schema } from '../store/schema';
import { findTenant } from '../store/tenants';
import { actorOf, type Caller } from './caller';
import type { ServiceDependencies } from './dependencies';

// Operators set a tenant's payment policy (domain/payment-policy.ts): every change is a new
// version that says who made it and what it was before (changePolicy); tenants read their own.
// Its parts: a book's limits (policy-limits.ts), recipients (policy-recipients.ts) and allowed
// contract calls (contract-calls.ts).
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

export type Operator = Extract<Caller, { role: 'operator' }>;

/** A tenant's key reads only its own tenant's policy (403, as for its intents). */
export const ownTenantOnly = (caller: Caller, tenantId: string): void => {
  if (caller.role === 'tenant' && caller.tenantId !== tenantId) {
    throw new OtherTenantError(caller.tenantId, tenantId, 'the payment policy');
  }
};

export const invalid = (field: string, message: string) =>
  new InvalidIntentError([{ field, message }], 'policy change');

/** `value` as a checksummed address, or a refusal naming `field`. */
export function addressIn(field: string, value: string): Hex {
  if (!isAddress(value, { strict: false })) throw invalid(field, `"${value}" is not an address`);
  return getAddress(value);
}

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
