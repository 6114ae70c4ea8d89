import type { z } from 'zod';
import type { batchSchema } from '../api/schemas/batches';
import type { ContractCallInput } from '../domain/contract-call';

// What the API client sends and gets back where no API schema names it.

export interface AttemptView {
  attempt: number;
  nonce: number;
  txHash: string;
  gas: string;
  maxFeePerGas: string;
  maxPriorityFeePerGas: string;
  cause: string;
  createdAt: string;
}

/** A batch as the API shows it (api/schemas/batches.ts). */
export type BatchView = z.infer<typeof batchSchema>;

export interface BatchItemResultView {
  index: number;
  status: string;
  intentId: string | null;
  txHash: string | null;
  errorCode: string | null;
  reason: string | null;
}

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
}
