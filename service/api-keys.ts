import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { UnknownTenantError } from '../domain/errors';
import { findApiKey, insertApiKey, listApiKeys, revokeApiKey } from '../store/api-keys';
import type { Database } from '../store/database';
import type { ApiKeyRole } from '../store/schema';
import { findTenant } from '../store/tenants';
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
  database: Database,
  key: NewApiKey,
  now: Date,
): Promise<{ id: string; apiKey: string }> {
  if (key.role === 'tenant') {
    if (!key.tenantId) throw new Error('a tenant key needs a tenant');
    if (!(await findTenant(database.kysely, key.tenantId))) {
      throw new UnknownTenantError(key.tenantId);
    }
  }
  const id = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  await insertApiKey(
    database.kysely,
    {
      id,
      role: key.role,
      tenantId: key.role === 'tenant' ? key.tenantId! : null,
      label: key.label,
      secretSha256: sha256(secret).toString('hex'),
    },
    now,
  );
  return { id, apiKey: `rly_${id}_${secret}` };
}

/** The caller a presented key stands for; undefined for anything but a live, well-formed key. */
export async function authenticate(
  database: Database,
  presented: string,
): Promise<Caller | undefined> {
  const match = keyFormat.exec(presented);
  if (!match) return undefined;
  const [, id, secret] = match as unknown as [string, string, string];
  const key = await findApiKey(database.kysely, id);
  if (!key || key.revoked) return undefined;
  if (!timingSafeEqual(sha256(secret), Buffer.from(key.secretSha256, 'hex'))) return undefined;
  if (key.role === 'operator') return { role: 'operator', keyId: id, label: key.label };
  return key.tenantId === null
    ? undefined
    : { role: 'tenant', tenantId: key.tenantId, keyId: id, label: key.label };
}

export const revokeKey = (database: Database, id: string, now: Date): Promise<boolean> =>
  revokeApiKey(database.kysely, id, now);

export async function listKeys(database: Database): Promise<ApiKeyInfo[]> {
  return (await listApiKeys(database.kysely)).map((key) => ({
    id: key.id,
    role: key.role,
    tenantId: key.tenantId,
    label: key.label,
    createdAt: key.createdAt.toISOString(),
    revoked: key.revoked,
  }));
}
