import type { RecipientEntry, RecipientList } from '../domain/payment-policy';
import {
  deleteRecipient,
  findRecipient,
  listRecipients,
  putRecipient,
} from '../store/policy-recipients';
import type { Caller } from './caller';
import {
  addressIn,
  changePolicy,
  existingTenant,
  invalid,
  now,
  ownTenantOnly,
  type Deps,
  type Operator,
  type PolicyView,
} from './policies';

// Who a tenant may pay on a chain: its allow- and deny-lists, and whether the allow-list binds.

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

/** Puts a recipient on the tenant's allow- or deny-list for a chain (moved if on the other). */
export async function addRecipient(
  deps: Deps,
  caller: Operator,
  tenantId: string,
  entry: { chainId: number; address: string; list: RecipientList; label: string },
): Promise<RecipientEntry> {
  const added: RecipientEntry = { ...entry, address: addressIn('address', entry.address) };
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
  const removed = addressIn('address', address);
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
