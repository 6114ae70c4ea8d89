import { type Kysely, type Migration } from 'kysely';
import { backfillReasonCodes } from './reason-code-backfill';

export const reasonCodes: Migration = {
  async up(db: Kysely<unknown>) {
    // Why an intent is where it is, as a code (domain/reason-codes.ts), beside the text.
    await db.schema.alterTable('intents').addColumn('reason_code', 'text').execute();
    await backfillReasonCodes(db);
  },
};
