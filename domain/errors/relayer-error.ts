import { type ErrorName } from '../error-catalogue';

// The base of every error the relayer raises on purpose: its name (error-catalogue.ts), message
// and details.

export class RelayerError<Details extends object = Record<string, unknown>> extends Error {
  override readonly name: ErrorName;
  readonly details: Details;
  /** When set, the retry comes this late (instead of the retry policy's backoff). */
  readonly retryAfterMs?: number;

  constructor(
    name: ErrorName,
    message: string,
    details: Details,
    options?: { cause?: unknown; retryAfterMs?: number },
  ) {
    super(message, options);
    this.name = name;
    this.details = details;
    this.retryAfterMs = options?.retryAfterMs;
  }
}

export interface FieldIssue {
  field: string;
  message: string;
}
