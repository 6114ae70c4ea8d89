import type { Kysely } from 'kysely';
import type { AllowedCall } from '../domain/payment-policy';
import type { Schema } from './schema';

// The contract functions each tenant's intents may call, per chain, as they stand (every change
// is also a policy version: policies.ts).

const allowedCallFromRow = (row: {
  chain_id: number;
  contract: string;
  selector: string;
  signature: string | null;
  max_value: string | null;
  label: string;
  allow_no_code: number;
}): AllowedCall => ({
  chainId: Number(row.chain_id),
  contract: row.contract,
  selector: row.selector as `0x${string}`,
  ...(row.signature !== null && { signature: row.signature }),
  ...(row.max_value !== null && { maxValue: BigInt(row.max_value) }),
  label: row.label,
  ...(Number(row.allow_no_code) === 1 && { allowNoCode: true as const }),
});

const allowedCallColumns = [
  'chain_id',
  'contract',
  'selector',
  'signature',
  'max_value',
  'label',
  'allow_no_code',
] as const;

export async function findAllowedCall(
  db: Kysely<Schema>,
  tenantId: string,
  of: { chainId: number; contract: string; selector: string },
): Promise<AllowedCall | undefined> {
  const row = await db
    .selectFrom('policy_contract_calls')
    .select(allowedCallColumns)
    .where('tenant_id', '=', tenantId)
    .where('chain_id', '=', of.chainId)
    .where('contract', '=', of.contract)
    .where('selector', '=', of.selector)
    .executeTakeFirst();
  return row && allowedCallFromRow(row);
}

export async function listAllowedCalls(
  db: Kysely<Schema>,
  tenantId: string,
  chainId?: number,
): Promise<AllowedCall[]> {
  let query = db
    .selectFrom('policy_contract_calls')
    .select(allowedCallColumns)
    .where('tenant_id', '=', tenantId);
  if (chainId !== undefined) query = query.where('chain_id', '=', chainId);
  const rows = await query.orderBy('chain_id').orderBy('contract').orderBy('selector').execute();
  return rows.map(allowedCallFromRow);
}

/** Allows `call` (replacing its bound and label if it was allowed already). */
export async function putAllowedCall(
  trx: Kysely<Schema>,
  tenantId: string,
  call: AllowedCall,
  now: Date,
): Promise<void> {
  const changing = {
    signature: call.signature ?? null,
    max_value: call.maxValue?.toString() ?? null,
    label: call.label,
    allow_no_code: call.allowNoCode ? 1 : 0,
    created_at: now.toISOString(),
  };
  await trx
    .insertInto('policy_contract_calls')
    .values({
      tenant_id: tenantId,
      chain_id: call.chainId,
      contract: call.contract,
      selector: call.selector,
      ...changing,
    })
    .onConflict((conflict) =>
      conflict.columns(['tenant_id', 'chain_id', 'contract', 'selector']).doUpdateSet(changing),
    )
    .execute();
}

export async function deleteAllowedCall(
  trx: Kysely<Schema>,
  tenantId: string,
  of: { chainId: number; contract: string; selector: string },
): Promise<void> {
  await trx
    .deleteFrom('policy_contract_calls')
    .where('tenant_id', '=', tenantId)
    .where('chain_id', '=', of.chainId)
    .where('contract', '=', of.contract)
    .where('selector', '=', of.selector)
    .execute();
}
