import { z } from 'zod';
import { BatchMode } from '../domain/batch';
import { IntentStatus, type Intent } from '../domain/intent';
import { intentBodySchema } from '../domain/intent-request';
import { intentSnapshot } from '../domain/webhooks';
import type { BatchWithCounts } from '../service/batch-queries';
import type { AuditEntry, TransactionAttempt } from '../service/intent-queries';
import type { WalletStanding } from '../service/wallet-standing';
import type { DeliveryRow } from '../service/webhooks';

/** Ten thousand is the batch size the relayer is measured with; this leaves room above it. */
export const maxBatchItems = 50_000;

const statuses = Object.values(IntentStatus) as [IntentStatus, ...IntentStatus[]];
const hex = z.string().regex(/^0x[0-9a-fA-F]*$/);

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
    amount: z.string().describe("in the asset's base units (wei), as a decimal string"),
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
    reasonCode: z
      .string()
      .nullable()
      .describe(
        'the same as a code to branch on: reverted, cancelled_on_chain, confirmation_timeout, cancelled_by_caller, failed_by_review, … (docs/api.md)',
      ),
    idempotencyKey: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Intent' });
export type IntentView = z.infer<typeof intentSchema>;

export const intentView = (intent: Intent): IntentView => ({
  ...intentSnapshot(intent),
  idempotencyKey: intent.idempotencyKey,
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

/** A POST that takes nothing: no body (fastify: null) or `{}`; anything in it is refused, not ignored. */
export const noBodySchema = z.strictObject({}).nullish();

export const idParamsSchema = z.strictObject({ id: z.string().min(1).max(64) });

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

export const noteBodySchema = z.strictObject({ note: z.string().max(1000).optional() }).optional();

export const batchBodySchema = z.strictObject({
  items: z
    .array(intentBodySchema)
    .min(1, { error: 'a batch needs at least one item' })
    .max(maxBatchItems, { error: `a batch holds at most ${maxBatchItems} items` }),
  concurrency: z.number().int().min(1).max(200).default(8).describe('items running at once'),
  mode: z
    .enum([BatchMode.collectAll, BatchMode.failFast])
    .default(BatchMode.collectAll)
    .describe('collect_all runs every item; fail_fast stops starting items at the first failure'),
});

export const batchSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    status: z.string().describe('running, completed, stopped (fail_fast) or cancelled'),
    mode: z.string(),
    concurrency: z.number().int(),
    itemCount: z.number().int(),
    counts: z.record(z.string(), z.number().int()).describe('items by status'),
    cause: z.string().nullable(),
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
  cause: batch.cause,
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
        errorCode: z.string().nullable(),
        reason: z.string().nullable(),
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

export const walletSchema = z.object({
  chainId: z.number().int(),
  address: hex,
  balance: z.string().describe('wei, as a decimal string'),
  pendingNonces: z.number().int().describe('our signed transactions of it not ended yet'),
  blockedBy: z
    .string()
    .nullable()
    .describe('the intent in review whose unused nonce its lane waits behind'),
  low: z.boolean().describe('below LOW_BALANCE_ETH'),
  retired: z.boolean().describe('retired by an operator: signs nothing new'),
});

export const walletParamsSchema = z.strictObject({
  chainId: z.coerce.number().int().positive(),
  address: z.string(),
});

export const walletPoolBodySchema = z.strictObject({
  chainId: z.number().int().positive(),
  wallets: z
    .array(z.string())
    .nullable()
    .describe("the tenant's wallets on the chain; null: every wallet of the relayer"),
});
export const addWalletBodySchema = z.strictObject({
  address: z.string().describe('the wallet'),
  signer: z
    .string()
    .describe('where its key is: `kms:<key id, ARN or alias>` or `remote:<http(s) URL>`'),
});
export const addedWalletSchema = z
  .object({
    address: z.string(),
    signer: z.string().describe('a remote signer by its host only'),
  })
  .meta({ id: 'AddedWallet' });
export type WalletView = z.infer<typeof walletSchema>;
export const walletsSchema = z.object({ wallets: z.array(walletSchema) });

export const walletView = (wallet: WalletStanding): WalletView => ({
  chainId: wallet.chainId,
  address: wallet.address,
  balance: wallet.balanceWei.toString(),
  pendingNonces: wallet.pendingNonces,
  blockedBy: wallet.blockedBy,
  low: wallet.low,
  retired: wallet.retired,
});

export const tokenSchema = z
  .object({
    chainId: z.number().int(),
    address: hex,
    alias: z.string(),
    symbol: z.string(),
    decimals: z.number().int(),
    feeOnTransfer: z.boolean(),
  })
  .meta({ id: 'Token' });

export type TokenView = z.infer<typeof tokenSchema>;

export const tokensSchema = z.object({ tokens: z.array(tokenSchema) }).meta({ id: 'Tokens' });

export const balancesSchema = z
  .object({
    tenantId: z.string(),
    balances: z.array(
      z.object({
        asset: z.string().describe('"native", or the alias of a registered token'),
        chainId: z.number().int().nullable().describe("a token's chain; null for the native coin"),
        decimals: z.number().int().describe('amounts are in base units: 10^-decimals of the asset'),
        available: z.string().describe('base units the tenant can pay out now'),
        held: z.string().describe('base units held for its open intents'),
      }),
    ),
  })
  .meta({ id: 'Balances' });
export type BalancesView = z.infer<typeof balancesSchema>;

export const registeredTokenSchema = tokenSchema
  .extend({
    probe: z
      .enum(['fee_on_transfer', 'delivers_in_full', 'not_probed'])
      .describe('what a transfer simulated from a hot wallet holding the token showed'),
  })
  .meta({ id: 'RegisteredToken' });

export const registerTokenBodySchema = z.strictObject({
  chainId: z.number().int().positive(),
  address: z.string().describe('the token contract'),
  alias: z.string().optional().describe("unique per chain; defaults to the token's symbol"),
  feeOnTransfer: z
    .boolean()
    .optional()
    .describe('overrides what the probe finds (say so for a token no hot wallet holds yet)'),
});

export const tokensQuerySchema = z.strictObject({ chainId: z.coerce.number().int().optional() });

export const newEndpointBodySchema = z.strictObject({
  url: z
    .string()
    .max(2000)
    .describe('https only (http to loopback only where WEBHOOK_ALLOW_LOOPBACK)'),
  eventTypes: z
    .array(z.string().max(64))
    .max(20)
    .optional()
    .describe('intent.<status> types, or "*" (the default): every one'),
});

export const endpointSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    url: z.string(),
    eventTypes: z.array(z.string()),
    status: z.string().describe('active, or disabled (a 410, or by hand)'),
    disabledReason: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'WebhookEndpoint' });
export type WebhookEndpointView = z.infer<typeof endpointSchema>;

export const registeredEndpointSchema = endpointSchema
  .extend({ secret: z.string().describe('whsec_…: shown this once, stored encrypted') })
  .meta({ id: 'RegisteredWebhookEndpoint' });

export const endpointsSchema = z.object({ endpoints: z.array(endpointSchema) });

export const endpointParamsSchema = z.strictObject({ id: z.string().min(1).max(64) });

export const deliveriesQuerySchema = z.strictObject({
  status: z.enum(['pending', 'delivered', 'dead']).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

const deliverySchema = z.object({
  eventId: z.string().describe('the webhook-id of every attempt'),
  intentId: z.string(),
  sequence: z.number().int().describe("the event's place among its intent's events"),
  type: z.string(),
  status: z.string().describe('pending, delivered, or dead (its retries ran out)'),
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  nextAttemptAt: z
    .string()
    .nullable()
    .describe("a pending delivery: when it is tried next (after its intent's earlier events)"),
  deliveredAt: z.string().nullable(),
  createdAt: z.string(),
});
export type WebhookDeliveryView = z.infer<typeof deliverySchema>;

export const deliveriesSchema = z
  .object({ deliveries: z.array(deliverySchema) })
  .meta({ id: 'WebhookDeliveries' });

export const deliveryView = (row: DeliveryRow): WebhookDeliveryView => ({
  ...row,
  nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
  deliveredAt: row.deliveredAt?.toISOString() ?? null,
  createdAt: row.createdAt.toISOString(),
});
