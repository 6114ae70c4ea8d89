import { sql, type Kysely } from 'kysely';

/**
 * The codes of reasons written before there were codes, read from their text as it was written
 * up to this migration (frozen here: the text may change later, these rows will not).
 */
const legacyExactReasons: Record<string, string> = {
  'transaction reverted on-chain': 'reverted',
  'cancelled on-chain: a zero-value transfer took its nonce': 'cancelled_on_chain',
  'workflow cancelled': 'workflow_cancelled',
};

function reasonCodeOfLegacyText(text: string): string {
  const exact = legacyExactReasons[text];
  if (exact) return exact;
  if (text.startsWith('cancelled by ')) return 'cancelled_by_caller';
  if (text.startsWith('resolved as failed by ')) return 'failed_by_review';
  if (text.startsWith('waiting: wallet ')) return 'wallet_blocked';
  if (/^\w+ still failing when its time ran out/.test(text)) return 'step_timed_out';
  const named = text.match(/^([A-Z][A-Za-z]+): /)?.[1];
  if (named) return named.replace(/(?<=[a-z0-9])([A-Z])/g, '_$1').toLowerCase();
  return 'legacy_unknown';
}

/** Migration 0010: every intent with a reason gets its code, read from the text. */
export async function backfillReasonCodes(db: Kysely<unknown>): Promise<void> {
  const rows = await sql<{ id: string; reason: string }>`
    select id, reason from intents where reason is not null`.execute(db);
  const byCode = new Map<string, string[]>();
  for (const row of rows.rows) {
    const code = reasonCodeOfLegacyText(row.reason);
    const ids = byCode.get(code);
    if (ids) ids.push(row.id);
    else byCode.set(code, [row.id]);
  }
  for (const [code, ids] of byCode) {
    for (let start = 0; start < ids.length; start += 500) {
      const chunk = ids.slice(start, start + 500);
      await sql`update intents set reason_code = ${code} where id in (${sql.join(chunk)})`.execute(
        db,
      );
    }
  }
}
