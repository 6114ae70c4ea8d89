import type { Kysely, Migration } from 'kysely';

/** Why a schedule is paused, as its pause said: shown with the schedule (null: active or none). */
export const schedulePauseNotes: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('payment_schedules').addColumn('pause_note', 'text').execute();
  },
};
