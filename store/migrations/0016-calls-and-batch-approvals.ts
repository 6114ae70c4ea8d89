import type { Kysely, Migration } from 'kysely';
import type { MigrationContext } from './migration-context';

export const callsAndBatchApprovals = ({ amount, timestamp }: MigrationContext): Migration => ({
  async up(db: Kysely<unknown>) {
    // An intent that calls a contract instead of paying a recipient: its call data (its native
    // value is the intent's amount).
    await db.schema.alterTable('intents').addColumn('call_data', 'text').execute();
    // The contract functions a tenant's intents may call, as they stand (each allow and removal
    // is a version of tenant_policies, with who and before → after).
    await db.schema
      .createTable('policy_contract_calls')
      .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
      .addColumn('chain_id', 'integer', (c) => c.notNull())
      .addColumn('contract', 'text', (c) => c.notNull())
      .addColumn('selector', 'text', (c) => c.notNull())
      .addColumn('signature', 'text')
      .addColumn('max_value', amount)
      .addColumn('label', 'text', (c) => c.notNull())
      .addColumn('created_at', timestamp, (c) => c.notNull())
      .addPrimaryKeyConstraint('policy_contract_calls_pk', [
        'tenant_id',
        'chain_id',
        'contract',
        'selector',
      ])
      .execute();
    // A batch whose items cross their approval threshold waits for one decision as a batch: the
    // key that submitted it, and who decided (approved or rejected) and why.
    await db.schema.alterTable('batches').addColumn('submitted_by', 'text').execute();
    await db.schema.alterTable('batches').addColumn('decided_by', 'text').execute();
    await db.schema.alterTable('batches').addColumn('decision_note', 'text').execute();
  },
});
