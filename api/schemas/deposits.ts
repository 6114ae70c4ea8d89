import { callerReferenceFields } from '../../domain/caller-reference';
import { z } from 'zod';
import { depositStatuses } from '../../domain/deposit';
import { hex } from './common';

/** A tenant's deposit addresses and what reached them. */

export const depositAddressBodySchema = z.object({
  chainId: z.number().int().positive(),
  index: z
    .number()
    .int()
    .min(0)
    .max(999)
    .optional()
    .describe("which of the tenant's addresses on the chain: 0 (the default) or another"),
  ...callerReferenceFields,
});

export const depositAddressSchema = z
  .object({
    chainId: z.number().int(),
    address: hex.describe('send the native coin or a registered token here'),
    index: z.number().int(),
    createdAt: z.string(),
    reference: z
      .string()
      .nullable()
      .describe('yours for it (e.g. the customer it is for): on each deposit found at it'),
    metadata: z.record(z.string(), z.string()).describe('yours for it, on each deposit too'),
  })
  .meta({ id: 'DepositAddress' });

export const depositAddressesSchema = z
  .object({ addresses: z.array(depositAddressSchema) })
  .meta({ id: 'DepositAddresses' });

export const depositSchema = z
  .object({
    id: z.string(),
    chainId: z.number().int(),
    txHash: hex,
    logIndex: z
      .number()
      .int()
      .describe("the Transfer log's position in its receipt; -1 for the native coin"),
    address: hex,
    asset: z.string().describe('"native", or the token\'s address'),
    amount: z.string().describe('base units'),
    blockNumber: z.string(),
    status: z.enum(depositStatuses),
    detectedAt: z.string(),
    creditedAt: z.string().nullable(),
    reference: z.string().nullable().describe("its address's reference when it was found"),
    metadata: z.record(z.string(), z.string()).describe("its address's metadata then"),
  })
  .meta({ id: 'Deposit' });

export const depositsSchema = z
  .object({ deposits: z.array(depositSchema) })
  .meta({ id: 'Deposits' });

export const depositsQuerySchema = z.object({
  status: z.enum(depositStatuses).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export const reconcileBodySchema = z.object({ chainId: z.number().int().positive() });

const amount = z.string().describe('base units');

export const reconciliationSchema = z
  .object({
    chainId: z.number().int(),
    blockNumber: z.string().describe("the chain's side read at this block: the last one scanned"),
    differences: z.number().int().describe('lines and books that disagree: 0 when all agree'),
    sweepGas: amount.describe("gas the chain's confirmed sweeps cost the house (wei)"),
    sweeping: z.array(hex).describe('addresses with a sweep under way: not compared this time'),
    lines: z.array(
      z.object({
        address: hex,
        asset: z.string(),
        held: amount.describe('what the address held at the block'),
        swept: amount.describe('what confirmed sweeps mined by then moved out'),
        credited: amount,
        uncredited: amount.describe('recorded, never credited: dust and unregistered tokens'),
        pending: amount.describe('detected, not final yet'),
        difference: amount.describe('held + swept − (credited + uncredited + pending)'),
      }),
    ),
    books: z.array(
      z.object({
        asset: z.string().describe('the book'),
        credited: amount.describe('credited by deposits'),
        postedOut: amount.describe('what @system/deposits gave out'),
      }),
    ),
  })
  .meta({ id: 'DepositReconciliation' });
