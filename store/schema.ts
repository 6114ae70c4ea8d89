import type { BatchStatus } from '../domain/batch';
import type { ColumnType, Generated } from 'kysely';
import type { WalletRole } from '../domain/custody';
import type { IntentStatus } from '../domain/intent';
import type { IntentPriority } from '../domain/intent-priority';
import type { ReasonCode } from '../domain/reason-codes';
import type { Amount, BigIntColumn, Timestamp } from './column-types';
import type { ApiKeyRole } from '../domain/api-scopes';
import type { AttemptCause } from '../domain/transfer';
import type { BatchesTable, BatchItemsTable } from './batch-tables';
import type { PaymentSchedulesTable, ScheduleOccurrencesTable } from './schedule-tables';
import type { DepositTables } from './deposit-tables';
import type { PausesTable } from './pause-tables';
import type { LineRepairsTable, NonceFillsTable, TransactionAttemptsTable } from './attempt-tables';

export type { PausesTable } from './pause-tables';
import type {
  PolicyContractCallsTable,
  PolicyRecipientsTable,
  TenantPoliciesTable,
} from './policy-tables';
import type {
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
  WebhookEventsTable,
} from './webhook-tables';

/** The SQL dialect of a database: column types differ where SQLite cannot hold a value. */
export type Dialect = 'sqlite' | 'postgres';

export { fromTimestamp, timestampOrNull } from './column-types';

export interface TenantsTable {
  id: string;
  name: string;
  /** Intents of the tenant open at once; null = the relayer's default. */
  max_in_flight: ColumnType<number | null, number | null | undefined, number | null>;
  /** Requests a minute for each of its keys without a limit of their own; null: the API's. */
  requests_per_minute: ColumnType<number | null, number | null | undefined, number | null>;
  /** Its weight among tenants of one priority (migration 0024); null: 1. */
  fairness_weight: ColumnType<number | null, number | null | undefined, number | null>;
  /** 1: two of its intents may not share a reference (migration 0029). */
  unique_references: ColumnType<number, number | undefined, number>;
  created_at: Timestamp;
}

export type { ApiKeyRole };

/** Only a hash of each key's secret is kept: a leaked table grants nothing. */
export interface ApiKeysTable {
  id: string;
  role: ApiKeyRole;
  /** The tenant a `tenant` key acts for; null for operator keys. */
  tenant_id: string | null;
  label: string;
  secret_sha256: string;
  /** The key's scopes (domain/api-scopes.ts), space-separated. */
  scopes: string;
  created_at: Timestamp;
  revoked_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
  /** After this the key no longer works (null: never; a rotated key's grace ends here). */
  expires_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
  /** When the key was last used, to the minute: written at most once a minute. */
  last_used_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
  /** The key that replaced this one by `keys rotate`. */
  replaced_by: string | null;
  /** Its own request limit a minute; null: the API's API_REQUESTS_PER_KEY_PER_MINUTE. */
  requests_per_minute: number | null;
}

/** Every operator (and tenant) action on an intent outside its workflow: who, what, when. */
export interface AuditLogTable {
  id: Generated<number>;
  intent_id: string;
  action: string;
  actor: string;
  /** JSON. */
  detail: string;
  created_at: Timestamp;
}

export type TenantAccountKind = 'available' | 'held';
/**
 * `funding`: what was deposited (negative); `settled`: what was paid out; `fees`: gas the hot
 * wallets burned (native); `house`: what the house paid of that gas (negative); `deposits`: what
 * tenants' deposit addresses received on the chain and was credited (negative).
 */
export type SystemAccountKind = 'funding' | 'settled' | 'fees' | 'house' | 'deposits';
export const systemAccountOwner = '@system';

/** The asset an account or posting counts in: `native`, or `erc20:<chainId>:<address>`. */
type LedgerAsset = ColumnType<string, string | undefined, string>;

export interface LedgerAccountsTable {
  owner: string;
  kind: TenantAccountKind | SystemAccountKind;
  asset: LedgerAsset;
  balance: Amount;
}

/** Double entry: every ledger movement writes postings that sum to zero, per asset. */
export interface PostingsTable {
  id: Generated<number>;
  entry: string;
  intent_id: string | null;
  owner: string;
  kind: TenantAccountKind | SystemAccountKind;
  asset: LedgerAsset;
  amount: Amount;
  created_at: Timestamp;
}

export type HoldStatus = 'active' | 'captured' | 'released';

export interface HoldsTable {
  intent_id: string;
  tenant_id: string;
  /** The intent's asset (ledger name): what `amount` counts in. */
  asset: LedgerAsset;
  amount: Amount;
  /** Native held for the gas of the intent's transaction, when tenants pay it (else 0). */
  fee_held: ColumnType<string, string | undefined, string>;
  status: HoldStatus;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WalletsTable {
  chain_id: number;
  address: string;
  next_nonce: number;
  /** Set: the wallet signs nothing new (it finishes what it has). */
  retired_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
  /** `hot` pays intents; `treasury` only tops hot wallets up (never chosen for a payment). */
  role: ColumnType<WalletRole, WalletRole | undefined, WalletRole>;
}

/** A wallet below its low mark in an asset, since when: operators are told once a dip. */
export interface WalletLowMarksTable {
  chain_id: number;
  address: string;
  /** `native`, or the token's address. */
  asset: string;
  low_since: Timestamp;
}

/** The wallets a tenant may send from on a chain; no row for the chain: every wallet. */
export interface TenantWalletsTable {
  tenant_id: string;
  chain_id: number;
  address: string;
}

export interface IntentsTable {
  id: string;
  tenant_id: string;
  chain_id: number;
  /** The sending wallet: named by the request, else chosen when the intent is signed. */
  from_address: string | null;
  to_address: string;
  /** `native`, or the token's address (on `chain_id`). */
  asset: ColumnType<string, string | undefined, string>;
  amount: Amount;
  status: IntentStatus;
  version: number;
  nonce: number | null;
  tx_hash: string | null;
  raw_tx: string | null;
  block_number: BigIntColumn | null;
  reason: string | null;
  reason_code: ReasonCode | null;
  /** Native wei the hot wallet paid in gas for the mined transaction (null until it is mined). */
  fee_paid: Amount | null;
  /**
   * What a fee-on-transfer token delivered to the recipient (null: the whole amount, or native).
   */
  delivered_amount: Amount | null;
  /** The tenant's Idempotency-Key the intent was submitted with, if any. */
  idempotency_key: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** When a confirmed intent's block became final on its chain (null until then). */
  finalized_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
  /** The API key that submitted it (null: submitted without one, or before keys were recorded). */
  submitted_by: ColumnType<string | null, string | null | undefined, string | null>;
  /** The version of its tenant's payment policy it was admitted under (0: none set). */
  policy_version: ColumnType<number | null, number | null | undefined, number | null>;
  /** A contract call's data (its native value is `amount`); null: a transfer. */
  call_data: ColumnType<string | null, string | null | undefined, string | null>;
  /** Never signed or sent after this (null: no deadline). */
  valid_until: ColumnType<Date | string | null, string | null | undefined, string | null>;
  /** urgent or bulk (migration 0023); null: normal. */
  priority: ColumnType<
    IntentPriority | null,
    IntentPriority | null | undefined,
    IntentPriority | null
  >;
  /** Not signed before this (null: at once). */
  not_before: ColumnType<Date | string | null, string | null | undefined, string | null>;
  /** `intent.delayed` notices sent (migration 0028). */
  delayed_notices: ColumnType<number, number | undefined, number>;
  /** The caller's reference and its metadata as JSON (migration 0029); null: none, or redacted. */
  reference: ColumnType<string | null, string | null | undefined, string | null>;
  metadata: ColumnType<string | null, string | null | undefined, string | null>;
  /** Its own fee ceiling, wei per gas (migration 0030); null: the chain's caps only. */
  max_fee_per_gas: ColumnType<string | null, string | null | undefined, string | null>;
  /** 1: its tenant asked for unique references when it was admitted (a unique index holds it). */
  reference_unique: ColumnType<number, number | undefined, number>;
}

/** An intent's metadata once more, a row per key: what a search by a key's value reads. */
export interface IntentMetadataTable {
  intent_id: string;
  tenant_id: string;
  key: string;
  value: string;
}

export type { AttemptCause };

/** An ERC-20 token registered for a chain (symbol and decimals read from it). */
export interface AssetsTable {
  chain_id: number;
  address: string;
  alias: string;
  symbol: string;
  decimals: number;
  /** 1: the token takes a fee on transfer (a shortfall is expected). */
  fee_on_transfer: number;
  created_at: Timestamp;
}

/** A wallet added at run time and the signer holding its key (`kms:<key>` or `remote:<url>`). */
export interface WalletSignersTable {
  address: string;
  signer: string;
  added_at: Timestamp;
}

export type { BatchStatus };
export type { BatchesTable, BatchItemState, BatchItemsTable, BatchMode } from './batch-tables';
export type {
  PolicyContractCallsTable,
  PolicyRecipientsTable,
  TenantPoliciesTable,
} from './policy-tables';
export type {
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookDeliveryStatus,
  WebhookEndpointStatus,
  WebhookEndpointsTable,
  WebhookEventsTable,
} from './webhook-tables';

export interface Schema extends DepositTables {
  tenants: TenantsTable;
  ledger_accounts: LedgerAccountsTable;
  postings: PostingsTable;
  holds: HoldsTable;
  wallets: WalletsTable;
  wallet_low_marks: WalletLowMarksTable;
  tenant_wallets: TenantWalletsTable;
  wallet_signers: WalletSignersTable;
  assets: AssetsTable;
  intents: IntentsTable;
  intent_metadata: IntentMetadataTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  api_keys: ApiKeysTable;
  audit_log: AuditLogTable;
  batches: BatchesTable;
  batch_items: BatchItemsTable;
  transaction_attempts: TransactionAttemptsTable;
  nonce_fills: NonceFillsTable;
  line_repairs: LineRepairsTable;
  tenant_policies: TenantPoliciesTable;
  policy_recipients: PolicyRecipientsTable;
  policy_contract_calls: PolicyContractCallsTable;
  pauses: PausesTable;
  payment_schedules: PaymentSchedulesTable;
  schedule_occurrences: ScheduleOccurrencesTable;
}
