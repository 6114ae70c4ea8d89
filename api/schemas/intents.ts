import { IntentPriority, intentPriorities } from '../../domain/intent-priority';
import { z } from 'zod';
import { IntentStatus, type Intent } from '../../domain/intent';
import { intentSnapshot } from '../../domain/webhooks';
import type { AuditEntry, TransactionAttempt } from '../../service/intent-queries';
import { hex, reasonCodeSchema } from './common';
import { selectorOf } from '../../domain/contract-call';
import { referenceField } from '../../domain/caller-reference';

/** Intents as the API shows them: one, a page of them, their transactions and audit trail. */

const statuses = Object.values(IntentStatus) as [IntentStatus, ...IntentStatus[]];

export const intentSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    status: z.enum(statuses),
    chainId: z.number().int(),
    from: hex
      .nullable()
      .describe('the sending wallet; null until signed when the request named none'),
    to: hex,
    asset: z.string().describe('"native", or the address of the token on the chain'),
    amount: z
      .string()
      .describe("in the asset's base units (wei), as a decimal string; a call's native value"),
    call: z
      .object({ data: hex, selector: hex.describe("the function's 4-byte selector") })
      .nullable()
      .describe('a contract call: `to` is the contract, `amount` the value sent; null: a transfer'),
    deliveredAmount: z
      .string()
      .nullable()
      .describe('what a fee-on-transfer token delivered, when less than the amount'),
    feePaid: z
      .string()
      .nullable()
      .describe('native wei the hot wallet paid in gas for the mined transaction'),
    nonce: z.number().int().nullable(),
    txHash: hex.nullable(),
    blockNumber: z
      .string()
      .nullable()
      .describe('block of its receipt; while confirming, the one seen so far (cleared by a reorg)'),
    reason: z.string().nullable().describe('why it is where it is, for a person'),
    reasonCode: reasonCodeSchema
      .nullable()
      .describe(
        'the same as a code to branch on: reverted, cancelled_on_chain, confirmation_timeout, cancelled_by_caller, failed_by_review, … (docs/api.md)',
      ),
    idempotencyKey: z.string().nullable(),
    submittedBy: z.string().nullable().describe('the id of the API key that submitted it'),
    policyVersion: z
      .number()
      .int()
      .nullable()
      .describe("the tenant's payment policy version it was admitted under (0: none set)"),
    createdAt: z.string(),
    updatedAt: z.string(),
    finalizedAt: z
      .string()
      .nullable()
      .describe("when its chain's finalized block reached its transaction's (confirmed only)"),
    validUntil: z
      .string()
      .nullable()
      .describe('never signed or sent after this; still unsigned then, it ends `expired`'),
    notBefore: z.string().nullable().describe('not signed before this (it waits, holding no slot)'),
    priority: z
      .enum(intentPriorities)
      .describe("how Temporal's task queues order its work: urgent first, bulk last"),
    maxFeePerGas: z
      .string()
      .nullable()
      .describe(
        'its own fee ceiling, wei per gas: no bid above it, and above it it waits unsigned (null: the chain caps only)',
      ),
    reference: z
      .string()
      .nullable()
      .describe("the caller's own id for it (not for personal data); null: none, or redacted"),
    metadata: z
      .record(z.string(), z.string())
      .describe("the caller's keys and values, as submitted ({}: none, or redacted)"),
  })
  .meta({ id: 'Intent' });
export type IntentView = z.infer<typeof intentSchema>;

export const intentView = (intent: Intent): IntentView => ({
  ...intentSnapshot(intent),
  idempotencyKey: intent.idempotencyKey,
  submittedBy: intent.submittedBy ?? null,
  policyVersion: intent.policyVersion ?? null,
  call: intent.callData ? { data: intent.callData, selector: selectorOf(intent.callData) } : null,
  priority: intent.priority ?? IntentPriority.normal,
  maxFeePerGas: intent.maxFeePerGas?.toString() ?? null,
});

export const intentListSchema = z
  .object({ intents: z.array(intentSchema), nextCursor: z.string().nullable() })
  .meta({ id: 'IntentList' });

export const intentListQuerySchema = z.strictObject({
  status: z.enum(statuses).optional(),
  reference: referenceField.optional().describe('only the intents with this reference'),
  metadata: z
    .record(z.string(), z.string())
    .optional()
    .describe(
      'only the intents whose metadata holds each key given with its value: `?metadata[invoice]=INV-7`',
    ),
  tenantId: z.string().max(63).optional().describe('operator keys only: one tenant'),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(512).optional(),
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
export const attemptsSchema = z
  .object({
    attempts: z.array(
      z.object({
        attempt: z.number().int(),
        nonce: z.number().int(),
        txHash: hex,
        gas: z.string(),
        maxFeePerGas: z.string().describe('wei'),
        maxPriorityFeePerGas: z.string().describe('wei'),
        cause: z.enum(['first', 'fee_bump', 'nonce_reassigned', 'cancel']),
        createdAt: z.string(),
      }),
    ),
  })
  .meta({ id: 'TransactionAttempts' });
export const attemptsView = (attempts: TransactionAttempt[]): z.infer<typeof attemptsSchema> => ({
  attempts: attempts.map((attempt) => ({
    attempt: attempt.attempt,
    nonce: attempt.nonce,
    txHash: attempt.txHash,
    gas: attempt.gas.toString(),
    maxFeePerGas: attempt.maxFeePerGas.toString(),
    maxPriorityFeePerGas: attempt.maxPriorityFeePerGas.toString(),
    cause: attempt.cause,
    createdAt: attempt.createdAt.toISOString(),
  })),
});

export const auditTrailSchema = z.object({ entries: z.array(auditEntrySchema) });
export const auditView = (entries: AuditEntry[]) => ({ entries });
