import type { Kysely, Migration } from 'kysely';

export const callsWithoutCode: Migration = {
  async up(db: Kysely<unknown>) {
    // 1: the contract may be deployed after its calls are admitted (a counterfactual address),
    // so a target without code is not refused; 0: such a call is refused at admission.
    await db.schema
      .alterTable('policy_contract_calls')
      .addColumn('allow_no_code', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
