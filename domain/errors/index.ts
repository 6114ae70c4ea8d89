/**
 * The relayer's errors as classes, each with its message and details, by what refuses:
 * error-catalogue.ts declares each one's name, whether a retry can fix it and the API's word.
 */
export * from './relayer-error';
export * from './request-errors';
export * from './idempotency-errors';
export * from './review-errors';
export * from './speed-up-errors';
export * from './chain-errors';
export * from './signer-errors';
export * from './webhook-errors';
export * from './policy-errors';
export * from './caller-reference-errors';
export * from './internal-errors';
