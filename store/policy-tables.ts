import type { ColumnType } from 'kysely';
import type { Amount, Timestamp } from './column-types';

// The payment policy's tables: its versions, recipient lists and allowed contract calls.

/** One version of a tenant's payment policy (domain/payment-policy.ts); never updated. */
export interface TenantPoliciesTable {
  tenant_id: string;
  version: number;
  /** JSON: the limits and allow-list chains, amounts as strings. */
  document: string;
  changed_by: string;
  /** JSON: what this version changed, before → after. */
  change: string;
  created_at: Timestamp;
}

export interface PolicyRecipientsTable {
  tenant_id: string;
  chain_id: number;
  address: string;
  list: 'allow' | 'deny';
  label: string;
  created_at: Timestamp;
}

/** A contract function a tenant's intents may call (domain/payment-policy.ts AllowedCall). */
export interface PolicyContractCallsTable {
  tenant_id: string;
  chain_id: number;
  contract: string;
  selector: string;
  signature: string | null;
  max_value: Amount | null;
  label: string;
  created_at: Timestamp;
  /** 1: a target without code is allowed (deployed later); 0: refused at admission. */
  allow_no_code: ColumnType<number, number | undefined, number>;
}
