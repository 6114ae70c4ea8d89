import type { Kysely, Selectable } from 'kysely';
import type { ApiKeyRole, ApiKeysTable, Schema } from './schema';

export interface StoredApiKey {
  id: string;
  role: ApiKeyRole;
  tenantId: string | null;
  label: string;
  /** Hex SHA-256 of the secret: the secret itself is never stored. */
  secretSha256: string;
  createdAt: Date;
  revoked: boolean;
}

const keyFromRow = (row: Selectable<ApiKeysTable>): StoredApiKey => ({
  id: row.id,
  role: row.role,
  tenantId: row.tenant_id,
  label: row.label,
  secretSha256: row.secret_sha256,
  createdAt: new Date(row.created_at),
  revoked: row.revoked_at !== null,
});

export async function insertApiKey(
  db: Kysely<Schema>,
  key: Omit<StoredApiKey, 'createdAt' | 'revoked'>,
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
      created_at: now.toISOString(),
    })
    .execute();
}

export async function findApiKey(
  db: Kysely<Schema>,
  id: string,
): Promise<StoredApiKey | undefined> {
  const row = await db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
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

export async function listApiKeys(db: Kysely<Schema>): Promise<StoredApiKey[]> {
  const rows = await db.selectFrom('api_keys').selectAll().orderBy('created_at').execute();
  return rows.map(keyFromRow);
}
