import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { ApiKeyRole, Schema } from '../store/schema';
import { UnknownTenantError } from '../domain/errors';
import type { Caller } from './caller';

/**
 * `rly_<id>_<secret>`: the id finds the row, the secret proves the holder. The secret has 256
 * random bits, so a plain SHA-256 is enough to store it (a slow password hash protects guessable
 * secrets, and nobody guesses 256 bits); the comparison takes constant time.
 */
const keyFormat = /^rly_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

const sha256 = (secret: string): Buffer => createHash('sha256').update(secret).digest();

export interface NewApiKey {
  role: ApiKeyRole;
  /** Required for a tenant key. */
  tenantId?: string;
  label: string;
}

export interface ApiKeyInfo {
  id: string;
  role: ApiKeyRole;
  tenantId: string | null;
  label: string;
  createdAt: string;
  revoked: boolean;
}

/** Creates a key and returns it whole: the only time the secret is ever seen. */
export async function createApiKey(
  db: Kysely<Schema>,
  key: NewApiKey,
  now: Date,
): Promise<{ id: string; apiKey: string }> {
  if (key.role === 'tenant') {
    if (!key.tenantId) throw new Error('a tenant key needs a tenant');
    const tenant = await db
      .selectFrom('tenants')
      .select('id')
      .where('id', '=', key.tenantId)
      .executeTakeFirst();
    if (!tenant) throw new UnknownTenantError(key.tenantId);
  }
  const id = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  await db
    .insertInto('api_keys')
    .values({
      id,
      role: key.role,
      tenant_id: key.role === 'tenant' ? key.tenantId! : null,
      label: key.label,
      secret_sha256: sha256(secret).toString('hex'),
      created_at: now.toISOString(),
    })
    .execute();
  return { id, apiKey: `rly_${id}_${secret}` };
}

/** The caller a presented key stands for; undefined for anything but a live, well-formed key. */
export async function authenticate(
  db: Kysely<Schema>,
  presented: string,
): Promise<Caller | undefined> {
  const match = keyFormat.exec(presented);
  if (!match) return undefined;
  const [, id, secret] = match as unknown as [string, string, string];
  const row = await db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row || row.revoked_at !== null) return undefined;
  if (!timingSafeEqual(sha256(secret), Buffer.from(row.secret_sha256, 'hex'))) return undefined;
  if (row.role === 'operator') return { role: 'operator', keyId: id, label: row.label };
  return row.tenant_id === null
    ? undefined
    : { role: 'tenant', tenantId: row.tenant_id, keyId: id, label: row.label };
}

export async function revokeApiKey(db: Kysely<Schema>, id: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: now.toISOString() })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function listApiKeys(db: Kysely<Schema>): Promise<ApiKeyInfo[]> {
  const rows = await db.selectFrom('api_keys').selectAll().orderBy('created_at').execute();
  return rows.map((row) => ({
    id: row.id,
    role: row.role,
    tenantId: row.tenant_id,
    label: row.label,
    createdAt: new Date(row.created_at).toISOString(),
    revoked: row.revoked_at !== null,
  }));
}
