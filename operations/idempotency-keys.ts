import { IdempotencyKeyExpiredError } from '../domain/errors';

/**
 * An Idempotency-Key names what it was first used for during `ttlMs` (IDEMPOTENCY_KEY_TTL_HOURS);
 * after that the same key is refused, whatever the body, instead of being taken as a new request
 * (a retry from long ago must not pay a second time) or answered with an intent it may no longer
 * mean. Absent `ttlMs`: it never expires.
 */
export function refuseIfKeyExpired({
  key,
  firstUsedAt,
  ttlMs,
  now,
  usedFor,
}: {
  key: string;
  firstUsedAt: Date;
  ttlMs: number | undefined;
  now: Date;
  usedFor: string;
}): void {
  if (ttlMs === undefined) return;
  const expiredAt = new Date(firstUsedAt.getTime() + ttlMs);
  if (now < expiredAt) return;
  throw new IdempotencyKeyExpiredError({ key, usedFor, expiredAt });
}
