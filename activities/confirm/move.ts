import type { TransactionObservation } from '../../chain/chain';

/** One attempt of the intent as this look saw it (attempts oldest first). */
export interface AttemptSeen {
  nonce: number;
  signedAt: number;
  /** Its fee cap: below the head's base fee it cannot be mined (outbid by the chain). */
  maxFeePerGas: bigint;
  seen: TransactionObservation;
}

/** What one look at an intent saw: the input of `decideConfirmMove`. */
export interface ConfirmLook {
  now: number;
  /** Blocks on top of the receipt's (counting it) to be confirmed. */
  confirmations: number;
  /** Not mined this long after signing: outbid it (or fill the gap it waits behind). */
  stuckAfterMs: number;
  /** Not mined this long after signing: ask the node whether it still has the bytes. */
  askNodeAfterMs: number;
  /** The block the intent's receipt was last seen in (null: none seen). */
  notedBlock: bigint | null;
  /** The watched head's base fee. */
  baseFeePerGas: bigint;
  attempts: AttemptSeen[];
  /** The wallet's nonces at the node, once a move asked for them. */
  nonces?: { mined: number; settled: number };
  /** Every attempt was looked up at the node again (before signing at a fresh nonce). */
  rechecked?: boolean;
}

export type ConfirmMove =
  /** Attempt `attempt` is mined deep enough: the intent ends (confirmed, or failed if reverted). */
  | { move: 'finish'; attempt: number }
  /** Attempt `attempt` is mined, not deep enough yet: remember its block and look again later. */
  | { move: 'note-receipt'; attempt: number; confirmations: number }
  /** Nothing to do but look again later. */
  | { move: 'wait' }
  /** Ask the node about the latest attempt's bytes (pending in its pool, or unknown). */
  | { move: 'ask-node' }
  /** Read the wallet's mined and settled nonces at the node. */
  | { move: 'read-nonces' }
  /** Look every attempt up at the node once more. */
  | { move: 'recheck-attempts' }
  /**
   * In the pool, not stuck yet: if it waits behind a nonce of ours the node lost, send that
   * payment's own stored bytes again (the line does not wait for that payment's next look).
   */
  | { move: 'repair-line' }
  /** Stuck in the pool: fill the nonce gap it waits behind, or outbid it at the same nonce. */
  | { move: 'unstick' }
  /** Its fee cap is below the chain's base fee: outbid it now, not once it is stuck. */
  | { move: 'outbid' }
  /** The node lost the bytes and their nonce is unused: send the same bytes again. */
  | { move: 'resend' }
  /** A stranger's transaction used the nonce for good: sign again at a fresh nonce. */
  | { move: 'reassign' };

/**
 * The one move a look calls for, from what it saw: pure, so each rule is tested on its own
 * (test/unit/confirm-move.test.ts) and the confirm step only carries moves out. A move that needs
 * more facts (`ask-node`, `read-nonces`, `recheck-attempts`) gets them added to the look and the
 * decision is made again. `reorged`: a receipt seen before is in no block now.
 *
 * - An attempt mined `confirmations` deep finishes the intent (whichever attempt it is).
 * - Mined less deep: note it and wait.
 * - Not mined, signed recently: wait (the watched blocks answer; the node is not asked).
 * - Not mined, its fee cap below the head's base fee: outbid it now (the chain will not mine it).
 * - Not mined for a while: ask the node. Pending: outbid it once stuck, else see that the line
 *   below it moves (a nonce of ours the node lost is sent again by whoever waits). Unknown with
 *   its nonce unused: send it again (outbid once stuck, where the caps allow). Unknown with its
 *   nonce used by a stranger: once that is settled, and none of ours shows a receipt on a last
 *   look, sign again at a fresh nonce.
 */
export function decideConfirmMove(look: ConfirmLook): { move: ConfirmMove; reorged: boolean } {
  for (let index = look.attempts.length - 1; index >= 0; index--) {
    const { seen } = look.attempts[index]!;
    if (seen.state !== 'mined') continue;
    const move: ConfirmMove =
      seen.confirmations >= look.confirmations
        ? { move: 'finish', attempt: index }
        : { move: 'note-receipt', attempt: index, confirmations: seen.confirmations };
    return { move, reorged: false };
  }
  const reorged = look.notedBlock !== null;
  return { move: unmined(look), reorged };
}

function unmined(look: ConfirmLook): ConfirmMove {
  const latest = look.attempts.at(-1);
  if (!latest) return { move: 'wait' };
  const ageMs = look.now - latest.signedAt;
  const outbid = latest.maxFeePerGas < look.baseFeePerGas;
  switch (latest.seen.state) {
    case 'not-mined':
      if (outbid) return { move: 'outbid' };
      return ageMs < look.askNodeAfterMs ? { move: 'wait' } : { move: 'ask-node' };
    case 'pending':
      if (outbid) return { move: 'outbid' };
      return ageMs < look.stuckAfterMs ? { move: 'repair-line' } : { move: 'unstick' };
    case 'unknown':
      if (!look.nonces) return { move: 'read-nonces' };
      if (look.nonces.mined <= latest.nonce) return { move: 'resend' };
      // Used by a transaction that is none of ours (none has a receipt). Sign again only once
      // that is as settled as we ask our own to be: a shallow reorg could still revive ours.
      if (look.nonces.settled <= latest.nonce) return { move: 'wait' };
      // Settled now: if one of ours is what used it (mined since the first look, seen through
      // another endpoint), its receipt shows on a last look at each.
      return look.rechecked ? { move: 'reassign' } : { move: 'recheck-attempts' };
    case 'mined':
      return { move: 'wait' };
  }
}

/** The longest gap between two looks at a payment not mined. */
export const maxUnminedLookGapMs = 5 * 60_000;

/**
 * When to look again at a payment first signed `sinceSignedMs` ago and not mined yet: at the
 * chain's pace at first, then after one and a half times as long as it has waited (at most
 * maxUnminedLookGapMs). Each look is an activity and a timer in the workflow's history (11
 * events): a payment unmined until a 30-minute confirmation timeout takes 14 looks, not 1,800.
 */
export const unminedLookGapMs = (sinceSignedMs: number, chainPaceMs: number): number =>
  Math.min(maxUnminedLookGapMs, Math.max(chainPaceMs, Math.floor(sinceSignedMs * 1.5)));
