import type { Kysely, Selectable } from 'kysely';
import { IntentStatus } from '../domain/intent';
import { PauseScope, type Pause } from '../domain/pause';
import { fromTimestamp, timestampOrNull, type PausesTable, type Schema } from './schema';

const pauseFromRow = (row: Selectable<PausesTable>): Pause => ({
  id: row.id,
  scope: row.scope as PauseScope,
  target: row.target,
  note: row.note,
  refuseAdmission: Number(row.refuse_admission) === 1,
  pausedBy: row.paused_by,
  pausedAt: fromTimestamp(row.paused_at),
  resumedBy: row.resumed_by,
  resumedAt: timestampOrNull(row.resumed_at),
  resumeNote: row.resume_note,
});

/** The pauses in force, oldest first. */
export async function activePauses(db: Kysely<Schema>): Promise<Pause[]> {
  const rows = await db
    .selectFrom('pauses')
    .selectAll()
    .where('resumed_at', 'is', null)
    .orderBy('paused_at')
    .execute();
  return rows.map(pauseFromRow);
}

/** Every pause, in force or resumed, newest first. */
export async function pauseHistory(db: Kysely<Schema>, limit: number): Promise<Pause[]> {
  const rows = await db
    .selectFrom('pauses')
    .selectAll()
    .orderBy('paused_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map(pauseFromRow);
}

export async function findPause(db: Kysely<Schema>, id: string): Promise<Pause | undefined> {
  const row = await db.selectFrom('pauses').selectAll().where('id', '=', id).executeTakeFirst();
  return row && pauseFromRow(row);
}

export async function insertPause(
  db: Kysely<Schema>,
  pause: Omit<Pause, 'resumedBy' | 'resumedAt' | 'resumeNote'>,
): Promise<void> {
  await db
    .insertInto('pauses')
    .values({
      id: pause.id,
      scope: pause.scope,
      target: pause.target,
      note: pause.note,
      refuse_admission: pause.refuseAdmission ? 1 : 0,
      paused_by: pause.pausedBy,
      paused_at: pause.pausedAt.toISOString(),
    })
    .execute();
}

/**
 * The intents a pause holds back, oldest first: admitted, not yet past their permit
 * (`authorized`), in its scope.
 */
export async function intentsWaitingUnder(
  db: Kysely<Schema>,
  pause: Pick<Pause, 'scope' | 'target'>,
): Promise<{ id: string; tenantId: string; chainId: number }[]> {
  let query = db
    .selectFrom('intents')
    .select(['id', 'tenant_id', 'chain_id'])
    .where('status', '=', IntentStatus.authorized);
  if (pause.scope === PauseScope.tenant) query = query.where('tenant_id', '=', pause.target);
  if (pause.scope === PauseScope.chain) query = query.where('chain_id', '=', Number(pause.target));
  const rows = await query.orderBy('created_at').execute();
  return rows.map((row) => ({
    id: row.id,
    tenantId: row.tenant_id,
    chainId: Number(row.chain_id),
  }));
}

/** Ends a pause in force; false when it was not (unknown, or resumed already). */
export async function markResumed(
  db: Kysely<Schema>,
  id: string,
  by: { actor: string; note: string | null },
  now: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('pauses')
    .set({ resumed_by: by.actor, resumed_at: now.toISOString(), resume_note: by.note })
    .where('id', '=', id)
    .where('resumed_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
