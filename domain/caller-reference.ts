import { z } from 'zod';

/**
 * The caller's own marks on a payment: `reference` (its payout id, invoice or customer: one string
 * it searches by) and `metadata` (a few keys and values it gets back on every view and webhook).
 * Neither is for personal data: the reference is a Temporal search attribute, kept unencrypted.
 */
export interface CallerReference {
  reference?: string;
  metadata?: Readonly<Record<string, string>>;
}

export const callerReferenceLimits = {
  referenceLength: 128,
  metadataKeys: 20,
  keyLength: 40,
  valueLength: 500,
  metadataBytes: 4096,
};

/** Letters, digits and `_ . : -`, starting with a letter or digit: a key reads as a column name. */
const metadataKeyPattern = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;
/** Control and format characters (and unassigned ones) are not printable. */
const unprintable = /\p{C}/u;
const characters = (value: string) => [...value].length;

export const referenceField = z
  .string({ error: 'reference must be a string' })
  .refine((value) => value.trim().length > 0, { error: 'reference must not be empty' })
  .refine((value) => characters(value) <= callerReferenceLimits.referenceLength, {
    error: `reference must be at most ${callerReferenceLimits.referenceLength} characters`,
  })
  .refine((value) => !unprintable.test(value), {
    error: 'reference must be printable characters only (no control characters)',
  });

const metadataValue = z
  .string({ error: 'a metadata value must be a string' })
  .refine((value) => characters(value) <= callerReferenceLimits.valueLength, {
    error: `a metadata value must be at most ${callerReferenceLimits.valueLength} characters`,
  })
  .refine((value) => !unprintable.test(value), {
    error: 'a metadata value must be printable characters only (no control characters)',
  });

/** What is wrong with a metadata key, or undefined. */
const keyProblem = (key: string): string | undefined => {
  if (characters(key) > callerReferenceLimits.keyLength) {
    return `a metadata key must be at most ${callerReferenceLimits.keyLength} characters`;
  }
  if (!metadataKeyPattern.test(key)) {
    return 'a metadata key must be letters, digits, "_", ".", ":" or "-", starting with a letter or digit';
  }
  return undefined;
};

export const metadataField = z
  .record(z.string(), metadataValue, {
    error: (issue) =>
      issue.code === 'invalid_type' && issue.path?.length === 0
        ? 'metadata must be an object of string keys and string values'
        : undefined,
  })
  .superRefine((metadata, ctx) => {
    for (const key of Object.keys(metadata)) {
      const problem = keyProblem(key);
      if (problem) ctx.addIssue({ code: 'custom', message: problem, path: [key] });
    }
  })
  .refine((metadata) => Object.keys(metadata).length <= callerReferenceLimits.metadataKeys, {
    error: `metadata may have at most ${callerReferenceLimits.metadataKeys} keys`,
  })
  .refine(
    (metadata) =>
      new TextEncoder().encode(JSON.stringify(metadata)).length <=
      callerReferenceLimits.metadataBytes,
    { error: `metadata must be at most ${callerReferenceLimits.metadataBytes} bytes as JSON` },
  );

/** The two fields as a request body carries them. */
export const callerReferenceFields = {
  reference: referenceField.optional(),
  metadata: metadataField.optional(),
};

const sameMetadata = (
  stored: Readonly<Record<string, string>> | null,
  asked: Readonly<Record<string, string>>,
) => {
  const storedKeys = Object.keys(stored ?? {});
  const askedKeys = Object.keys(asked);
  return (
    storedKeys.length === askedKeys.length && askedKeys.every((key) => stored?.[key] === asked[key])
  );
};

/**
 * Whether a request repeats a stored intent's reference and metadata: each is compared only when
 * the request gives it, so a retry that leaves them out (a client from before they existed) still
 * matches.
 */
export const sameCallerReference = (
  stored: { reference: string | null; metadata: Readonly<Record<string, string>> | null },
  asked: CallerReference,
): boolean =>
  (asked.reference === undefined || stored.reference === asked.reference) &&
  (asked.metadata === undefined || sameMetadata(stored.metadata, asked.metadata));
