import type { Kysely, Selectable } from 'kysely';
import { isApiScope, type ApiScope } from '../domain/api-scopes';
import type { ApiKeyRole, ApiKeysTable, Schema } from './schema';

export interface StoredApiKey {
  id: string;
  role: ApiKeyRole;
  tenantId: string | null;
  label: string;
  /** Hex SHA-256 of the secret: the secret itself is never stored. */
  secretSha256: string;
  scopes: ApiScope[];
  createdAt: Date;
  revoked: boolean;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  replacedBy: string | null;
  /** Its own requests a minute; null: its tenant's default, else the API's. */
  requestsPerMinute: number | null;
  /** Its tenant's default requests a minute for keys without their own (null: none). */
  tenantRequestsPerMinute: number | null;
}

const dateOrNull = (value: Date | string | null): Date | null =>
  value === null ? null : new Date(value);

const keyFromRow = (
  row: Selectable<ApiKeysTable> & { tenant_requests_per_minute: number | null },
): StoredApiKey => ({
  id: row.id,
  role: row.role,
  tenantId: row.tenant_id,
  label: row.label,
  secretSha256: row.secret_sha256,
  // A scope this version does not know (written by a newer one) grants nothing here.
  scopes: row.scopes.split(' ').filter(isApiScope),
  createdAt: new Date(row.created_at),
  revoked: row.revoked_at !== null,
  expiresAt: dateOrNull(row.expires_at),
  lastUsedAt: dateOrNull(row.last_used_at),
  replacedBy: row.replaced_by,
  requestsPerMinute: row.requests_per_minute,
  tenantRequestsPerMinute: row.tenant_requests_per_minute,
});

/** Keys with their tenant's default request limit beside them (one query, not two). */
const keysWithTenantLimit = (db: Kysely<Schema>) =>
  db
    .selectFrom('api_keys')
    .leftJoin('tenants', 'tenants.id', 'api_keys.tenant_id')
    .selectAll('api_keys')
    .select('tenants.requests_per_minute as tenant_requests_per_minute');

export type NewStoredApiKey = Pick<
  StoredApiKey,
  | 'id'
  | 'role'
  | 'tenantId'
  | 'label'
  | 'secretSha256'
  | 'scopes'
  | 'expiresAt'
  | 'requestsPerMinute'
>;

export async function insertApiKey(
  db: Kysely<Schema>,
  key: NewStoredApiKey,
  now: Date,
): Promise<void> {
  await db
    .insertInto('api_keys')
    .values({
      id: key.id,
      role: key.role,
      tenant_id: key.tenantId,
      label: key.label,
      secret_sha256: key.secretSha256,
      scopes: key.scopes.join(' '),
      created_at: now.toISOString(),
      expires_at: key.expiresAt?.toISOString() ?? null,
      replaced_by: null,
      requests_per_minute: key.requestsPerMinute,
    })
    .execute();
}

export async function findApiKey(
  db: Kysely<Schema>,
  id: string,
): Promise<StoredApiKey | undefined> {
  const row = await keysWithTenantLimit(db).where('api_keys.id', '=', id).executeTakeFirst();
  return row && keyFromRow(row);
}

/** True when a live key was revoked now (false: unknown, or revoked before). */
export async function revokeApiKey(db: Kysely<Schema>, id: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: now.toISOString() })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * The key as replaced by `replacedBy`, working until `expiresAt`. False when it is unknown,
 * revoked or already replaced (one successor per key).
 */
export async function replaceApiKey(
  db: Kysely<Schema>,
  id: string,
  replacedBy: string,
  expiresAt: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ replaced_by: replacedBy, expires_at: expiresAt.toISOString() })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .where('replaced_by', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Notes the key's use at `now`, unless a use since `notBefore` is noted already: one write a
 * minute at most, however many requests and processes.
 */
export async function noteApiKeyUse(
  db: Kysely<Schema>,
  id: string,
  now: Date,
  notBefore: Date,
): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: now.toISOString() })
    .where('id', '=', id)
    .where((eb) =>
      eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', notBefore.toISOString())]),
    )
    .execute();
}

export async function listApiKeys(db: Kysely<Schema>): Promise<StoredApiKey[]> {
  const rows = await keysWithTenantLimit(db).orderBy('api_keys.created_at').execute();
  return rows.map(keyFromRow);
}
