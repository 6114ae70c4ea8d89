import { type ErrorName } from '../error-catalogue';

// The base of every error the relayer raises on purpose: its name (error-catalogue.ts), message
// and details.

export class RelayerError<Details extends object = Record<string, unknown>> extends Error {
  override readonly name: ErrorName;
  readonly details: Details;
  /** When set, the retry comes this late (instead of the retry policy's backoff). */
  readonly retryAfterMs?: number;
  /** What to do about it, apart from the message that says what happened (viem's metaMessages). */
  readonly advice?: string;

  constructor(
    name: ErrorName,
    message: string,
    details: Details,
    options?: { cause?: unknown; retryAfterMs?: number; advice?: string },
  ) {
    super(message, options);
    this.name = name;
    this.details = details;
    this.retryAfterMs = options?.retryAfterMs;
    this.advice = options?.advice;
  }
}

export interface FieldIssue {
  field: string;
  message: string;
}
