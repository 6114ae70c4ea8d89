import { RelayerError } from './relayer-error';
import { ErrorName } from '../error-catalogue';

// An Idempotency-Key (or an intent id) used again: for another body, or after its window.

export class IntentConflictError extends RelayerError<{ intentId: string }> {
  constructor(intentId: string, idempotencyKey?: string) {
    super(
      ErrorName.intentConflict,
      idempotencyKey === undefined
        ? `intent ${intentId} already exists with different contents`
        : `Idempotency-Key "${idempotencyKey}" was already used for ${intentId} with a different body`,
      { intentId },
    );
  }
}

/** An Idempotency-Key used again after its window: refused, never a second payment. */
export class IdempotencyKeyExpiredError extends RelayerError<{
  usedFor: string;
  expiredAt: string;
}> {
  constructor({ key, usedFor, expiredAt }: { key: string; usedFor: string; expiredAt: Date }) {
    super(
      ErrorName.idempotencyKeyExpired,
      `Idempotency-Key "${key}" named ${usedFor} and expired at ${expiredAt.toISOString()}`,
      { usedFor, expiredAt: expiredAt.toISOString() },
      { advice: 'a new payment takes a new key; read the first one by its id' },
    );
  }
}
