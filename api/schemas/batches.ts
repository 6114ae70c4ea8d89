import { z } from 'zod';
import { BatchMode } from '../../domain/batch';
import { intentBodySchema } from '../../domain/intent-request';
import { deadlineFields } from '../../domain/intent-deadlines';
import { IntentPriority, intentPriorities } from '../../domain/intent-priority';
import type { BatchWithCounts } from '../../service/batch-queries';
import { reasonCodeSchema } from './common';

/** Batches: the body that submits one, the batch and its results as the API shows them. */

/** Ten thousand is the batch size the relayer is measured with; this leaves room above it. */
export const maxBatchItems = 50_000;

export const batchBodySchema = z.strictObject({
  items: z
    .array(
      intentBodySchema
        .refine((item) => item.call === undefined, {
          error: 'a batch pays transfers: submit a contract call as an intent of its own',
          path: ['call'],
        })
        .refine((item) => item.priority === undefined, {
          error: 'a batch item takes no priority: set it on the batch, beside items',
          path: ['priority'],
        })
        .refine((item) => item.validUntil === undefined && item.notBefore === undefined, {
          error:
            'a batch item takes no validUntil or notBefore: set them on the batch, beside items, for all its items',
          path: ['validUntil'],
        }),
    )
    .min(1, { error: 'a batch needs at least one item' })
    .max(maxBatchItems, { error: `a batch holds at most ${maxBatchItems} items` }),
  concurrency: z.number().int().min(1).max(200).default(8).describe('items running at once'),
  mode: z
    .enum([BatchMode.collectAll, BatchMode.failFast])
    .default(BatchMode.collectAll)
    .describe('collect_all runs every item; fail_fast stops starting items at the first failure'),
  ...deadlineFields,
  priority: z
    .enum(intentPriorities, { error: 'priority must be urgent, normal or bulk' })
    .default(IntentPriority.bulk)
    .describe("its items' priority: bulk unless it says otherwise"),
});

export const batchSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    status: z
      .string()
      .describe(
        'awaiting_approval (an item crosses its approval threshold: one decision first), running, completed, stopped (fail_fast), cancelled, or rejected (not approved: nothing started)',
      ),
    mode: z.string(),
    concurrency: z.number().int(),
    itemCount: z.number().int(),
    counts: z.record(z.string(), z.number().int()).describe('items by status'),
    cause: z.string().nullable().describe('why it stopped or was rejected, for a person'),
    causeCode: reasonCodeSchema
      .nullable()
      .describe(
        'the same as a code: cancelled_by_caller, workflow_cancelled, item_failed, rejected_by_approver, approval_expired (legacy_unknown: not recognised in a cause written before codes)',
      ),
    submittedBy: z.string().nullable().describe('the id of the API key that submitted it'),
    decidedBy: z
      .string()
      .nullable()
      .describe('who approved or rejected it, when it awaited approval'),
    decisionNote: z.string().nullable(),
    validUntil: z
      .string()
      .nullable()
      .describe(
        "its items' deadline: an item not admitted by then is refused, one unsigned expires",
      ),
    notBefore: z.string().nullable().describe('its items are not signed before this'),
    priority: z.enum(intentPriorities).describe("its items' priority"),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Batch' });

export const batchView = (batch: BatchWithCounts): z.infer<typeof batchSchema> => ({
  id: batch.id,
  tenantId: batch.tenantId,
  status: batch.status,
  mode: batch.mode,
  concurrency: batch.concurrency,
  itemCount: batch.itemCount,
  counts: batch.counts,
  cause: batch.cause?.text ?? null,
  causeCode: batch.cause?.code ?? null,
  submittedBy: batch.submittedBy ?? null,
  decidedBy: batch.decidedBy ?? null,
  decisionNote: batch.decisionNote ?? null,
  validUntil: batch.validUntil?.toISOString() ?? null,
  notBefore: batch.notBefore?.toISOString() ?? null,
  priority: batch.priority ?? IntentPriority.normal,
  createdAt: batch.createdAt.toISOString(),
  updatedAt: batch.updatedAt.toISOString(),
});

export const batchResultsSchema = z
  .object({
    results: z.array(
      z.object({
        index: z.number().int(),
        status: z.string(),
        intentId: z.string().nullable(),
        txHash: z.string().nullable(),
        errorCode: z.string().nullable().describe('why the item was refused at admission'),
        reasonCode: reasonCodeSchema
          .nullable()
          .describe("its intent's reason code, once started (docs/api.md)"),
        reason: z.string().nullable().describe('the refusal or the reason, for a person'),
        reference: z.string().nullable().describe("the item's reference, as submitted"),
        metadata: z
          .record(z.string(), z.string())
          .describe("the item's metadata, as submitted ({}: none)"),
      }),
    ),
    nextIndex: z.number().int().nullable(),
  })
  .meta({ id: 'BatchResults' });

export const batchResultsQuerySchema = z.strictObject({
  fromIndex: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

export const batchCancelBodySchema = z
  .strictObject({ reason: z.string().trim().min(1).max(500).optional() })
  .optional();
