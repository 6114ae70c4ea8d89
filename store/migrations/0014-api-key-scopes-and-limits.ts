import { sql, type Kysely, type Migration } from 'kysely';
import type { MigrationContext } from './migration-context';

/**
 * Keys get scopes, an expiry, their last use, their successor and a request limit of their own;
 * tenants a default request limit for their keys. Each existing key keeps what
 * its role let it do (a tenant key submits, reads and manages its webhooks; an operator key
 * reviews and administers), as the scopes that say so.
 */
// The scopes there were when this migration was released (later ones are granted by their own).
const tenantKeyScopes = ['intents:read', 'intents:write', 'batches:write', 'webhooks:admin'];
export const operatorKeyScopes = [...tenantKeyScopes, 'review', 'wallets:admin', 'assets:admin'];

export const apiKeyScopesAndLimits = ({ timestamp }: MigrationContext): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('api_keys')
      .addColumn('scopes', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    await db.schema.alterTable('api_keys').addColumn('expires_at', timestamp).execute();
    await db.schema.alterTable('api_keys').addColumn('last_used_at', timestamp).execute();
    await db.schema.alterTable('api_keys').addColumn('replaced_by', 'text').execute();
    await db.schema.alterTable('api_keys').addColumn('requests_per_minute', 'integer').execute();
    await db.schema.alterTable('tenants').addColumn('requests_per_minute', 'integer').execute();
    for (const [role, scopes] of [
      ['tenant', tenantKeyScopes],
      ['operator', operatorKeyScopes],
    ] as const) {
      await sql`update api_keys set scopes = ${scopes.join(' ')} where role = ${role}`.execute(db);
    }
  },
});
