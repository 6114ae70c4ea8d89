import { sql, type Kysely, type Migration } from 'kysely';
import type { MigrationContext } from './migration-context';
// The operator scopes before this migration: a key holding them all held "all".
import { operatorKeyScopes as operatorScopesBefore } from './0014-api-key-scopes-and-limits';

export const paymentPolicies = ({ timestamp }: MigrationContext): Migration => ({
  async up(db: Kysely<unknown>) {
    // Every version of every tenant's policy, never updated: the latest is in force, and each
    // row says who made it and what changed (before → after), so the table is its audit too.
    await db.schema
      .createTable('tenant_policies')
      .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('document', 'text', (c) => c.notNull())
      .addColumn('changed_by', 'text', (c) => c.notNull())
      .addColumn('change', 'text', (c) => c.notNull())
      .addColumn('created_at', timestamp, (c) => c.notNull())
      .addPrimaryKeyConstraint('tenant_policies_pk', ['tenant_id', 'version'])
      .execute();
    // The recipients on a tenant's allow- and deny-lists, as they stand (their history is in
    // tenant_policies: each add and remove is a version).
    await db.schema
      .createTable('policy_recipients')
      .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
      .addColumn('chain_id', 'integer', (c) => c.notNull())
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('list', 'text', (c) => c.notNull())
      .addColumn('label', 'text', (c) => c.notNull())
      .addColumn('created_at', timestamp, (c) => c.notNull())
      .addPrimaryKeyConstraint('policy_recipients_pk', ['tenant_id', 'chain_id', 'address'])
      .execute();
    // Which key submitted an intent and the policy version it was admitted under.
    await db.schema.alterTable('intents').addColumn('submitted_by', 'text').execute();
    await db.schema.alterTable('intents').addColumn('policy_version', 'integer').execute();
    // Rolling limits sum a tenant's holds in a book by status and time.
    await db.schema
      .createIndex('holds_tenant_book')
      .on('holds')
      .columns(['tenant_id', 'asset', 'status', 'updated_at'])
      .execute();
    // An operator key that held every operator scope keeps holding every one.
    await sql`update api_keys set scopes = scopes || ' policies:admin'
        where role = 'operator' and (' ' || scopes || ' ') not like '% policies:admin %' and ${sql.join(
          operatorScopesBefore.map((scope) => sql`(' ' || scopes || ' ') like ${`% ${scope} %`}`),
          sql` and `,
        )}`.execute(db);
  },
});
