import { z } from 'zod';
import { IntentStatus, type Intent } from '../domain/intent';
import type { AuditEntry } from '../service/audit-log';

const statuses = Object.values(IntentStatus) as [IntentStatus, ...IntentStatus[]];
const hex = z.string().regex(/^0x[0-9a-fA-F]*$/);

export const intentSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    status: z.enum(statuses),
    chainId: z.number().int(),
    from: hex,
    to: hex,
    amount: z.string().describe('wei, as a decimal string'),
    nonce: z.number().int().nullable(),
    txHash: hex.nullable(),
    blockNumber: z.string().nullable(),
    reason: z.string().nullable(),
    idempotencyKey: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Intent' });
export type IntentView = z.infer<typeof intentSchema>;

export const intentView = (intent: Intent): IntentView => ({
  id: intent.id,
  tenantId: intent.tenantId,
  status: intent.status,
  chainId: intent.chainId,
  from: intent.from,
  to: intent.to,
  amount: intent.amount.toString(),
  nonce: intent.nonce,
  txHash: intent.txHash,
  blockNumber: intent.blockNumber?.toString() ?? null,
  reason: intent.reason,
  idempotencyKey: intent.idempotencyKey,
  createdAt: intent.createdAt.toISOString(),
  updatedAt: intent.updatedAt.toISOString(),
});

export const intentListSchema = z
  .object({ intents: z.array(intentSchema), nextCursor: z.string().nullable() })
  .meta({ id: 'IntentList' });

export const intentListQuerySchema = z.strictObject({
  status: z.enum(statuses).optional(),
  tenantId: z.string().max(63).optional().describe('operator keys only: one tenant'),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(512).optional(),
});

export const intentParamsSchema = z.strictObject({ id: z.string().min(1).max(64) });

/** Printable ASCII, as most payment APIs take it; a UUID is a good choice. */
export const idempotencyHeadersSchema = z.object({
  'idempotency-key': z
    .string({ error: 'the Idempotency-Key header is required' })
    .regex(/^[\x21-\x7e]{1,255}$/, { error: '1-255 printable ASCII characters, no spaces' }),
});

export const auditEntrySchema = z
  .object({
    intentId: z.string(),
    action: z.string(),
    actor: z.string(),
    detail: z.record(z.string(), z.unknown()),
    at: z.string(),
  })
  .meta({ id: 'AuditEntry' });
export const auditTrailSchema = z.object({ entries: z.array(auditEntrySchema) });
export const auditView = (entries: AuditEntry[]) => ({ entries });

export const resolveConfirmedBodySchema = z.strictObject({
  txHash: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, { error: 'must be a transaction hash (0x + 64 hex digits)' })
    .transform((value) => value.toLowerCase() as `0x${string}`),
  note: z.string().max(1000).optional(),
});

export const resolveFailedBodySchema = z.strictObject({
  reason: z.string().trim().min(1, { error: 'say why the payment failed' }).max(1000),
});

export const retryBodySchema = z.strictObject({ note: z.string().max(1000).optional() }).optional();
