import { IntentStatus } from './intent';

// An inbound transfer into a tenant's deposit address, from its sighting to the books. Pure.

/**
 * - `detected`: seen in a block, not yet final; credited once its block is.
 * - `credited`: final, its receipt read again, posted to the tenant's book (once).
 * - `dropped`: a reorg took it out before finality; seen again in another block, it is detected
 *   again (the same row).
 * - `dust`: below the asset's dust mark: recorded, never credited.
 * - `unregistered`: a token the relayer does not know: recorded, never credited.
 */
export const depositStatuses = ['detected', 'credited', 'dropped', 'dust', 'unregistered'] as const;
export type DepositStatus = (typeof depositStatuses)[number];

/** A deposit sweep (an intent) that ended so moved nothing: its deposits may be swept again. */
export const sweepMovedNothingStatuses: readonly IntentStatus[] = [
  IntentStatus.failed,
  IntentStatus.cancelled,
  IntentStatus.rejected,
  IntentStatus.expired,
];

/** Below these a deposit is recorded, never credited. */
export interface DustMarks {
  nativeWei: bigint;
  /** In whole tokens (decimal text), each token's decimals applied. */
  tokens: string;
}

/** The position a native transfer takes in the deposit key (it has no log of its own). */
export const nativeLogIndex = -1;

export interface Deposit {
  id: string;
  chainId: number;
  /** Unique per chain with `logIndex`: the transfer's transaction … */
  txHash: string;
  /** … and its Transfer log's position in the block (nativeLogIndex for the native coin). */
  logIndex: number;
  /** The deposit address it reached, and its tenant. */
  address: string;
  tenantId: string;
  /** `native`, or the token's address. */
  asset: string;
  amount: bigint;
  blockNumber: bigint;
  blockHash: string;
  status: DepositStatus;
  detectedAt: Date;
  creditedAt: Date | null;
  /** Its address's reference and metadata when it was found (absent or null: none). */
  reference?: string | null;
  metadata?: Readonly<Record<string, string>> | null;
}

/** What a tenant's webhook endpoints are told of its deposits. */
export const depositEventTypes = ['deposit.detected', 'deposit.credited'] as const;
export type DepositEventType = (typeof depositEventTypes)[number];

/** The deposit as the API and an event show it: amounts and blocks as decimal strings. */
export const depositView = (deposit: Deposit) => ({
  id: deposit.id,
  chainId: deposit.chainId,
  txHash: deposit.txHash,
  logIndex: deposit.logIndex,
  address: deposit.address,
  asset: deposit.asset,
  amount: deposit.amount.toString(),
  blockNumber: deposit.blockNumber.toString(),
  status: deposit.status,
  detectedAt: deposit.detectedAt.toISOString(),
  creditedAt: deposit.creditedAt?.toISOString() ?? null,
  reference: deposit.reference ?? null,
  metadata: { ...deposit.metadata },
});

/** The body of a deposit event, serialized once. */
export const depositEventBody = (
  deposit: Deposit,
  change: { type: DepositEventType; sequence: number; at: Date },
): string =>
  JSON.stringify({
    type: change.type,
    timestamp: change.at.toISOString(),
    data: { sequence: change.sequence, deposit: depositView(deposit) },
  });
