import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { scopesForKey, type ApiScope } from '../domain/api-scopes';
import { InvalidIntentError, UnknownTenantError } from '../domain/errors';
import {
  findApiKey,
  insertApiKey,
  listApiKeys,
  noteApiKeyUse,
  replaceApiKey,
  revokeApiKey,
  type NewStoredApiKey,
  type StoredApiKey,
} from '../store/api-keys';
import type { Database } from '../store/database';
import type { ApiKeyRole } from '../domain/api-scopes';
import { findTenant } from '../store/tenants';
import type { Caller } from './caller';

/**
 * `rly_<id>_<secret>`: the id finds the row, the secret proves the holder. The secret has 256
 * random bits, so a plain SHA-256 is enough to store it (a slow password hash protects guessable
 * secrets, and nobody guesses 256 bits); the comparison takes constant time.
 */
const keyFormat = /^rly_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

/** A key's last use is written at most this often: a busy key costs no write per request. */
const lastUseResolutionMs = 60_000;

const sha256 = (secret: string): Buffer => createHash('sha256').update(secret).digest();

export interface NewApiKey {
  role: ApiKeyRole;
  /** Required for a tenant key. */
  tenantId?: string;
  label: string;
  /** Checked by scopesForKey (domain/api-scopes.ts) against the role; none: its defaults. */
  scopes?: ApiScope[];
  expiresAt?: Date;
  /** Its own requests a minute (none: the API's default per key). */
  requestsPerMinute?: number;
}

export interface ApiKeyInfo {
  id: string;
  role: ApiKeyRole;
  tenantId: string | null;
  label: string;
  scopes: ApiScope[];
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  replacedBy: string | null;
  requestsPerMinute: number | null;
  revoked: boolean;
}

/** A key that was let in: who it acts for, and what it may do (checked per route by the API). */
export interface AuthenticatedKey {
  caller: Caller;
  scopes: ReadonlySet<ApiScope>;
  /** Its request limit a minute: its own, else its tenant's default, when either is set. */
  requestsPerMinute?: number;
}

/**
 * Why a presented key was turned away, for the 401's message: `replaced` when its rotation's
 * grace ended (a newer key took over), `expired` when it simply reached its expiry.
 */
export type KeyRefusal = 'invalid' | 'expired' | 'replaced';

const keyRefused = (field: string, message: string) =>
  new InvalidIntentError([{ field, message }], 'key request');

/** Creates a key and returns it whole: the only time the secret is ever seen. */
export async function createApiKey(
  database: Database,
  key: NewApiKey,
  now: Date,
): Promise<{ id: string; apiKey: string }> {
  if (key.role === 'tenant') {
    if (!key.tenantId) throw keyRefused('tenantId', 'a tenant key needs a tenant');
    if (!(await findTenant(database.kysely, key.tenantId))) {
      throw new UnknownTenantError(key.tenantId);
    }
  }
  // The CLI asks scopesForKey first, naming the flag; here the same rule holds for any caller.
  const scopes = scopesForKey(key.scopes ?? [], key.role === 'tenant');
  if ('problem' in scopes) throw keyRefused('scopes', scopes.problem);
  const { stored, apiKey } = newKey({
    role: key.role,
    tenantId: key.role === 'tenant' ? key.tenantId! : null,
    label: key.label,
    scopes: scopes.scopes,
    expiresAt: key.expiresAt ?? null,
    requestsPerMinute: key.requestsPerMinute ?? null,
  });
  await insertApiKey(database.kysely, stored, now);
  return { id: stored.id, apiKey };
}

/**
 * A new key with the same tenant, label, scopes and expiry as `id`, which keeps working for
 * `graceMs` more (a client's deploy of the new key) and then stops. Undefined when `id` is not
 * a live key, or was rotated already.
 */
export async function rotateApiKey(
  database: Database,
  id: string,
  graceMs: number,
  now: Date,
): Promise<{ id: string; apiKey: string; oldKeyUntil: string } | undefined> {
  return database.transaction(async (trx) => {
    const old = await findApiKey(trx, id);
    if (!old || !isLive(old, now) || old.replacedBy) return undefined;
    const { stored, apiKey } = newKey(old);
    // The grace never lengthens a key's life: one that expires sooner keeps its own end.
    const graceEnd = new Date(now.getTime() + graceMs);
    const oldKeyUntil = old.expiresAt && old.expiresAt < graceEnd ? old.expiresAt : graceEnd;
    // Replaced first, so a rotation that lost a race to another writes nothing.
    if (!(await replaceApiKey(trx, id, stored.id, oldKeyUntil))) return undefined;
    await insertApiKey(trx, stored, now);
    return { id: stored.id, apiKey, oldKeyUntil: oldKeyUntil.toISOString() };
  });
}

/** A key's fresh id and secret, with `like`'s binding, label, scopes and expiry. */
function newKey(like: Omit<NewStoredApiKey, 'id' | 'secretSha256'>) {
  const id = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  const stored: NewStoredApiKey = {
    id,
    role: like.role,
    tenantId: like.tenantId,
    label: like.label,
    scopes: like.scopes,
    expiresAt: like.expiresAt,
    requestsPerMinute: like.requestsPerMinute,
    secretSha256: sha256(secret).toString('hex'),
  };
  return { stored, apiKey: `rly_${id}_${secret}` };
}

const isLive = (key: StoredApiKey, now: Date): boolean =>
  !key.revoked && (key.expiresAt === null || key.expiresAt > now);

/**
 * The caller a presented key stands for, or why it is refused: `invalid` for anything but a
 * well-formed key whose secret matches a key that was not revoked; `expired` (or `replaced`) once
 * that key's expiry (or its rotation's grace) has passed. Notes the key's use (at most once a
 * minute).
 */
export async function authenticate(
  database: Database,
  presented: string,
  now: Date,
): Promise<AuthenticatedKey | KeyRefusal> {
  const match = keyFormat.exec(presented);
  if (!match) return 'invalid';
  const [, id, secret] = match as unknown as [string, string, string];
  const key = await findApiKey(database.kysely, id);
  if (!key || key.revoked) return 'invalid';
  if (!timingSafeEqual(sha256(secret), Buffer.from(key.secretSha256, 'hex'))) return 'invalid';
  if (!isLive(key, now)) return key.replacedBy ? 'replaced' : 'expired';
  const notBefore = new Date(now.getTime() - lastUseResolutionMs);
  if (key.lastUsedAt === null || key.lastUsedAt < notBefore) {
    await noteApiKeyUse(database.kysely, id, now, notBefore);
  }
  const limit = key.requestsPerMinute ?? key.tenantRequestsPerMinute;
  const granted = {
    scopes: new Set(key.scopes),
    ...(limit !== null && { requestsPerMinute: limit }),
  };
  if (key.role === 'operator') {
    return { caller: { role: 'operator', keyId: id, label: key.label }, ...granted };
  }
  return key.tenantId === null
    ? 'invalid'
    : {
        caller: { role: 'tenant', tenantId: key.tenantId, keyId: id, label: key.label },
        ...granted,
      };
}

export const revokeKey = (database: Database, id: string, now: Date): Promise<boolean> =>
  revokeApiKey(database.kysely, id, now);

export async function listKeys(database: Database): Promise<ApiKeyInfo[]> {
  return (await listApiKeys(database.kysely)).map((key) => ({
    id: key.id,
    role: key.role,
    tenantId: key.tenantId,
    label: key.label,
    scopes: key.scopes,
    createdAt: key.createdAt.toISOString(),
    expiresAt: key.expiresAt?.toISOString() ?? null,
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    replacedBy: key.replacedBy,
    requestsPerMinute: key.requestsPerMinute,
    revoked: key.revoked,
  }));
}
