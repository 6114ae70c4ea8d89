import type { z } from 'zod';
import type { batchResultsSchema, batchSchema } from '../api/schemas/batches';
import type { attemptsSchema } from '../api/schemas/intents';
import type { ContractCallInput } from '../domain/contract-call';

// What the API client sends and gets back where no API schema names it.

/** A signed transaction of an intent as the API shows it (api/schemas/intents.ts). */
export type AttemptView = z.infer<typeof attemptsSchema>['attempts'][number];

/** A batch as the API shows it (api/schemas/batches.ts). */
export type BatchView = z.infer<typeof batchSchema>;

/** One item's result as the API shows it. */
export type BatchItemResultView = z.infer<typeof batchResultsSchema>['results'][number];

export interface SubmitBody {
  chainId: number;
  from?: string;
  to: string;
  /** `native` when absent, or a registered token's alias. */
  asset?: string;
  /** In base units; or `decimalAmount` in the asset's units, one of the two. */
  amount?: string;
  decimalAmount?: string;
  /** A contract call instead of a transfer (`to` is the contract), sending `value` wei. */
  call?: ContractCallInput;
  value?: string;
  validUntil?: string;
  notBefore?: string;
  priority?: 'urgent' | 'normal' | 'bulk';
  /** The caller's own id for it, and its keys and values (domain/caller-reference.ts). */
  reference?: string;
  metadata?: Record<string, string>;
}
