import type { Kysely } from 'kysely';
import type { Schema } from './schema';

/**
 * Operators' and tenants' actions (a speed-up among them), and the relayer's own moves on the
 * chain (actor `relayer`): a fee-bumped replacement, a re-send of dropped bytes, a new nonce after
 * a stranger used ours, a nonce gap filled, a receipt lost in a reorg.
 */
export type AuditAction =
  | 'cancel'
  | 'approve'
  | 'reject'
  | 'approval_expired'
  | 'resolve_confirmed'
  | 'resolve_failed'
  | 'retry'
  | 'cancel_signed'
  | 'sped_up'
  | 'replaced'
  | 'resent'
  | 'nonce_reassigned'
  | 'nonce_gap_filled'
  | 'line_repaired'
  | 'receipt_reorged'
  | 'reorged_before_finality'
  | 'redact';

export interface AuditEntry {
  intentId: string;
  action: AuditAction;
  actor: string;
  detail: Record<string, unknown>;
  at: string;
}

/** Written in the same transaction as the change it records: no change without its entry. */
export async function recordAudit(
  trx: Kysely<Schema>,
  entry: Omit<AuditEntry, 'at'>,
  now: Date,
): Promise<void> {
  await trx
    .insertInto('audit_log')
    .values({
      intent_id: entry.intentId,
      action: entry.action,
      actor: entry.actor,
      detail: JSON.stringify(entry.detail),
      created_at: now.toISOString(),
    })
    .execute();
}

export async function auditTrail(db: Kysely<Schema>, intentId: string): Promise<AuditEntry[]> {
  const rows = await db
    .selectFrom('audit_log')
    .selectAll()
    .where('intent_id', '=', intentId)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    intentId: row.intent_id,
    action: row.action as AuditAction,
    actor: row.actor,
    detail: JSON.parse(row.detail) as Record<string, unknown>,
    at: new Date(row.created_at).toISOString(),
  }));
}
