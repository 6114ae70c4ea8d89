import type { Kysely, Migration } from 'kysely';

/** A tenant's weight among tenants of the same priority (null: 1, every tenant alike). */
export const tenantFairnessWeights: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('tenants').addColumn('fairness_weight', 'real').execute();
  },
};
