import type { ColumnType } from 'kysely';
import type { BatchMode, BatchStatus } from '../domain/batch';
import type { IntentPriority } from '../domain/intent-priority';
import type { ReasonCode } from '../domain/reason-codes';
import type { Amount, Timestamp } from './column-types';

// A batch payout and its items.

export type { BatchMode };

export interface BatchesTable {
  id: string;
  tenant_id: string;
  mode: BatchMode;
  /** Items running at once, at most. */
  concurrency: number;
  item_count: number;
  status: BatchStatus;
  /** Why a fail-fast batch stopped, or who cancelled it. */
  cause: string | null;
  /** The cause's code (migration 0018); null with a null cause. */
  cause_code: ColumnType<ReasonCode | null, ReasonCode | null | undefined, ReasonCode | null>;
  idempotency_key: string;
  /** Its items' priority (migration 0023); null: bulk. */
  priority: ColumnType<
    IntentPriority | null,
    IntentPriority | null | undefined,
    IntentPriority | null
  >;
  /** Of the items as submitted: the same key with other items is refused. */
  request_sha256: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The API key that submitted it (null: none recorded). */
  submitted_by: ColumnType<string | null, string | null | undefined, string | null>;
  /** Who approved or rejected a batch that awaited approval, and their note. */
  decided_by: ColumnType<string | null, string | null | undefined, string | null>;
  decision_note: ColumnType<string | null, string | null | undefined, string | null>;
  /** Its items' deadlines (migration 0021; null: none). */
  valid_until: ColumnType<Date | string | null, string | null | undefined, string | null>;
  not_before: ColumnType<Date | string | null, string | null | undefined, string | null>;
}

/**
 * pending → started (its intent admitted, its workflow running) → finished; or skipped (never
 * started: the batch was cancelled or stopped first) or rejected (its intent was refused).
 */
export type BatchItemState = 'pending' | 'started' | 'finished' | 'skipped' | 'rejected';

export interface BatchItemsTable {
  batch_id: string;
  item_index: number;
  chain_id: number;
  from_address: string | null;
  to_address: string;
  /** `native`, or the token's address. */
  asset: ColumnType<string, string | undefined, string>;
  amount: Amount;
  state: BatchItemState;
  intent_id: string | null;
  /** The intent's status when its workflow ended (the intent row stays the truth). */
  outcome: string | null;
  error_code: string | null;
  error_message: string | null;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
  /** The item's own fee ceiling, wei per gas (migration 0030); null: the chain's caps only. */
  max_fee_per_gas: ColumnType<string | null, string | null | undefined, string | null>;
  /** The caller's reference and metadata (JSON) for the item's intent (migration 0029). */
  reference: ColumnType<string | null, string | null | undefined, string | null>;
  metadata: ColumnType<string | null, string | null | undefined, string | null>;
}
