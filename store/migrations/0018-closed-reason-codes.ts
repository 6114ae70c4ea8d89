import { sql, type Kysely, type Migration } from 'kysely';
import { reasonCodes } from '../../domain/reason-codes';

/**
 * Reason codes become a closed set. An intent's code outside it (a step that failed with a
 * TypeError was stored as `type_error`) becomes `internal`, its text unchanged. A batch's cause
 * gets a code of its own, read from its text as the workflow and the approval wrote it up to
 * this migration (frozen here).
 */
export const closedReasonCodes: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`update intents set reason_code = 'internal'
      where reason_code is not null and reason_code not in (${sql.join([...reasonCodes])})`.execute(
      db,
    );
    await db.schema.alterTable('batches').addColumn('cause_code', 'text').execute();
    await sql`update batches set cause_code = case
        when cause = 'cancelled: the batch workflow was cancelled' then 'workflow_cancelled'
        when cause like 'cancelled: %' then 'cancelled_by_caller'
        when cause like 'item % ended %' then 'item_failed'
        when cause like 'approval_expired:%' then 'approval_expired'
        when cause like 'rejected by %' then 'rejected_by_approver'
        else 'legacy_unknown' end
      where cause is not null`.execute(db);
  },
};
