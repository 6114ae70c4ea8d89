import { selectorOfFunction } from '../domain/contract-call';
import type { AllowedCall } from '../domain/payment-policy';
import type { Hex } from '../domain/transfer';
import { findToken } from '../store/assets';
import {
  deleteAllowedCall,
  findAllowedCall,
  listAllowedCalls,
  putAllowedCall,
} from '../store/allowed-calls';
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
} from './policies';

// The contract functions a tenant's intents may call: a part of its payment policy, changed as a
// new policy version like its limits and recipient lists (service/policies.ts).

/**
 * Allows the tenant's intents to call one function of one contract on a chain, with at most
 * `maxValue` native base units (absent: what the limits allow). `function` is its selector or
 * its signature. Refused, nothing written, for a registered token's contract: token payouts
 * are transfers, whose books are kept.
 */
export async function allowCall(
  deps: Deps,
  caller: Operator,
  tenantId: string,
  entry: {
    chainId: number;
    contract: string;
    function: string;
    /** Absent: the bound it had (none when new); null: no bound. */
    maxValue?: bigint | null;
    label: string;
    /** A target without code is let by (deployed later); absent: as it was (no when new). */
    allowNoCode?: boolean;
  },
): Promise<AllowedCall> {
  const contract = addressIn('contract', entry.contract);
  const selector = selectorIn(entry.function);
  if (entry.label.trim() === '') throw invalid('label', 'say what the call is for');
  const token = await findToken(deps.database.kysely, entry.chainId, { address: contract });
  if (token) {
    throw invalid(
      'contract',
      `${contract} is token ${token.alias} on chain ${entry.chainId}: pay it out with a transfer (asset ${token.alias}), whose books are kept`,
    );
  }
  let allowed: AllowedCall = {
    chainId: entry.chainId,
    contract,
    selector,
    ...(selector !== entry.function.toLowerCase() && { signature: entry.function }),
    ...(typeof entry.maxValue === 'bigint' && { maxValue: entry.maxValue }),
    label: entry.label,
    ...(entry.allowNoCode === true && { allowNoCode: true }),
  };
  await changePolicy(deps, caller, tenantId, async (policy, trx) => {
    const before = await findAllowedCall(trx, tenantId, allowed);
    // Allowed again without a setting keeps the one it had, as limits do; null removes a bound.
    if (entry.maxValue === undefined && before?.maxValue !== undefined) {
      allowed = { ...allowed, maxValue: before.maxValue };
    }
    if (entry.allowNoCode === undefined && before?.allowNoCode) {
      allowed = { ...allowed, allowNoCode: true };
    }
    await putAllowedCall(trx, tenantId, allowed, now(deps));
    return {
      next: policy,
      change: { what: callWhat(allowed), before: before ?? null, after: allowed },
    };
  });
  return allowed;
}

const callWhat = (call: { chainId: number; contract: string; selector: string }) =>
  `call ${call.selector} of ${call.contract} on chain ${call.chainId}`;

/** No longer allows a contract function; refused when it was not allowed. */
export async function disallowCall(
  deps: Deps,
  caller: Operator,
  tenantId: string,
  of: { chainId: number; contract: string; function: string },
): Promise<void> {
  const call = {
    chainId: of.chainId,
    contract: addressIn('contract', of.contract),
    selector: selectorIn(of.function),
  };
  await changePolicy(deps, caller, tenantId, async (policy, trx) => {
    const before = await findAllowedCall(trx, tenantId, call);
    if (!before) {
      throw invalid(
        'function',
        `${call.selector} of ${call.contract} is not allowed for tenant ${tenantId} on chain ${of.chainId}`,
      );
    }
    await deleteAllowedCall(trx, tenantId, call);
    return { next: policy, change: { what: callWhat(call), before, after: null } };
  });
}

export async function allowedCallsOf(
  { database }: Deps,
  caller: Caller,
  tenantId: string,
  chainId?: number,
): Promise<AllowedCall[]> {
  ownTenantOnly(caller, tenantId);
  await existingTenant(database, tenantId);
  return listAllowedCalls(database.kysely, tenantId, chainId);
}

/** A function's selector, from the selector or the function's signature; else a refusal. */
function selectorIn(value: string): Hex {
  const selector = selectorOfFunction(value);
  if (!selector) {
    throw invalid(
      'function',
      `"${value}" is neither a selector (0x and 8 hex digits) nor a function signature like "deposit(bytes32)"`,
    );
  }
  return selector;
}
