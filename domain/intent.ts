import type { IntentPriority } from './intent-priority';
// Types only: workflows import this file, and asset.ts's calls bring viem into their bundle.
import type { AssetRef } from './asset';
import type { ReasonCode } from './reason-codes';

/**
 * The life of a payment intent. Pure: imported by workflows, activities and clients alike.
 *
 * authorized → settling → held → signed → confirming → confirmed
 *
 * An intent its tenant's policy sends for approval starts `awaiting_approval` (nothing held, no
 * permit) and goes on `authorized` once approved, or ends `rejected` (refused, or not approved in
 * time). A failure before anything was signed ends in `failed` (hold released). Once a transaction
 * is signed its outcome can only be learned from the chain, so the exits are `confirmed`, `failed`
 * (mined but reverted) or `needs_review` for a human. Before anything is signed, a tenant may
 * cancel: `cancelled`, hold released.
 */
export const IntentStatus = {
  awaitingApproval: 'awaiting_approval',
  authorized: 'authorized',
  settling: 'settling',
  held: 'held',
  signed: 'signed',
  confirming: 'confirming',
  confirmed: 'confirmed',
  failed: 'failed',
  needsReview: 'needs_review',
  cancelled: 'cancelled',
  rejected: 'rejected',
  /** Its `validUntil` passed before it was signed: nothing was sent, its hold went back. */
  expired: 'expired',
} as const;
export type IntentStatus = (typeof IntentStatus)[keyof typeof IntentStatus];

/** Why an intent whose transaction was mined but reverted failed (no value moved). */
export const revertedReason = 'transaction reverted on-chain';
/** An operator's cancel (a zero-value transfer at the intent's nonce) was mined instead. */
export const cancelledOnChainReason = 'cancelled on-chain: a zero-value transfer took its nonce';

export const terminalStatuses: ReadonlySet<IntentStatus> = new Set([
  IntentStatus.confirmed,
  IntentStatus.failed,
  IntentStatus.needsReview,
  IntentStatus.cancelled,
  IntentStatus.rejected,
  IntentStatus.expired,
]);

/**
 * Nothing was signed yet, so nothing can be on-chain: the intent may still be cancelled, and it
 * counts in the backlog of work the relayer has accepted but not yet sent.
 */
export const notYetSignedStatuses: ReadonlySet<IntentStatus> = new Set([
  IntentStatus.authorized,
  IntentStatus.settling,
  IntentStatus.held,
]);

/**
 * Accepted and not ended, approved if it needed to be: what a tenant's in-flight limit counts
 * (intents awaiting approval have a limit of their own).
 */
export const openStatuses: readonly IntentStatus[] = Object.values(IntentStatus).filter(
  (status) => !terminalStatuses.has(status) && status !== IntentStatus.awaitingApproval,
);

/** Nothing signed yet: a tenant or an operator may still cancel it. */
export const cancellableStatuses: ReadonlySet<IntentStatus> = new Set([
  IntentStatus.awaitingApproval,
  ...notYetSignedStatuses,
]);

/** Order of the happy path; used to decide whether a step already ran. */
const progress: Record<IntentStatus, number> = {
  awaiting_approval: -1,
  authorized: 0,
  settling: 1,
  held: 2,
  signed: 3,
  confirming: 4,
  confirmed: 5,
  failed: 5,
  needs_review: 5,
  cancelled: 5,
  rejected: 5,
  expired: 5,
};

const stepBefore = { settling: IntentStatus.authorized, held: IntentStatus.settling } as const;

/**
 * What a database step should do with an intent in `status`: `run` it (the intent is at the step
 * before), skip it as `done` (the intent is there or beyond, needs_review included: a person
 * decides), or refuse it as `closed` (the intent failed or was cancelled, or is not ready for
 * it).
 */
export function stepState(
  status: IntentStatus,
  step: keyof typeof stepBefore,
): 'run' | 'done' | 'closed' {
  if (
    status === IntentStatus.failed ||
    status === IntentStatus.cancelled ||
    status === IntentStatus.rejected ||
    status === IntentStatus.expired
  ) {
    return 'closed';
  }
  if (progress[status] >= progress[step]) return 'done';
  return status === stepBefore[step] ? 'run' : 'closed';
}

/** A transaction may exist on-chain from `signed` on: from then on, failing means review. */
export function mayBeOnChain(status: IntentStatus): boolean {
  return status === IntentStatus.signed || status === IntentStatus.confirming;
}

export interface Intent {
  id: string;
  tenantId: string;
  chainId: number;
  /** The sending wallet: as the request named it, else chosen when the intent is signed. */
  from: `0x${string}` | null;
  to: `0x${string}`;
  /** `native`, or the address of a token registered for the chain. */
  asset: AssetRef;
  /** In the asset's base units (wei for the native coin). */
  amount: bigint;
  status: IntentStatus;
  /** Bumped by every state change; every write is a compare-and-set on it. */
  version: number;
  nonce: number | null;
  txHash: `0x${string}` | null;
  rawTx: `0x${string}` | null;
  blockNumber: bigint | null;
  /** Why it is where it is, for a person; `reasonCode` says the same for a program. */
  reason: string | null;
  reasonCode: ReasonCode | null;
  /** Native wei the mined transaction cost in gas, once it is mined deep enough. */
  feePaid: bigint | null;
  /** What a fee-on-transfer token delivered (null: the whole amount). */
  deliveredAmount: bigint | null;
  /** The tenant's Idempotency-Key it was submitted with, if any. */
  idempotencyKey: string | null;
  createdAt: Date;
  updatedAt: Date;
  /**
   * When the chain's finalized block reached its transaction's (a confirmed intent's payment can
   * no longer be reorged away); null until then, and for every other status.
   */
  finalizedAt?: Date | null;
  /** The API key that submitted it (absent or null: none recorded). */
  submittedBy?: string | null;
  /** Its tenant's payment policy version when it was admitted (0: none was set). */
  policyVersion?: number | null;
  /**
   * A contract call's data: the intent calls `to` with it, sending `amount` of the native coin
   * (absent or null: a transfer).
   */
  callData?: `0x${string}` | null;
  /** Never signed or sent after this (absent or null: no deadline; domain/intent-deadlines.ts). */
  validUntil?: Date | null;
  /** Not signed before this: the workflow waits on a timer, holding no permit. */
  notBefore?: Date | null;
  /** How urgent (domain/intent-priority.ts); absent or null: normal. */
  priority?: IntentPriority | null;
  /**
   * The most its transactions may bid per gas, wei (absent or null: the chain's caps only): above
   * it the payment waits unsigned for the fee to drop.
   */
  maxFeePerGas?: bigint | null;
  /** The caller's own id for it (domain/intent-labels.ts); absent or null: none, or redacted. */
  reference?: string | null;
  /** The caller's keys and values (domain/intent-labels.ts); absent or null: none. */
  metadata?: Readonly<Record<string, string>> | null;
}
