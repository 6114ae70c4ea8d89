import { type Intent } from '../../domain/intent';
import { signingWallet } from '../../domain/signed-intent';
import { recordAudit } from '../../store/audit-log';
import type { Chain } from '../../chain/chain';
import type { SignedTransfer } from '../../domain/transfer';
import type { ActivityDependencies } from '../dependencies';
import { findNonceFill, storeNonceFill } from '../../store/nonce-fills';
import { nonceHasAttempt } from '../../store/transaction-attempts';

export type GapCheck =
  /** Nothing missing below the intent's nonce: its transaction waits on its own fee bid. */
  | { gap: false }
  /** A nonce below ours is missing and belongs to one of our intents: that intent re-sends it. */
  | { gap: true; nonce: number; fill: undefined }
  /** A nonce below ours is missing and nobody of ours will ever send it: this fills it. */
  | { gap: true; nonce: number; fill: SignedTransfer };

/**
 * Finds the nonce a wallet's pending transactions wait behind. The node counts pending nonces
 * only up to the first missing one, so a pending count below our nonce is a gap. A missing nonce
 * no intent ever signed (a transaction sent with the wallet elsewhere and then dropped) is filled
 * with a zero-value transfer to the wallet itself, stored before it is sent and sent only once
 * per nonce whichever intent notices first.
 */
export async function checkNonceGap(
  { db, clock }: ActivityDependencies,
  chain: Chain,
  intent: Intent & { nonce: number },
): Promise<GapCheck> {
  const from = signingWallet(intent);
  const wallet = { chainId: intent.chainId, address: from };
  const missing = await chain.pendingNonce(from);
  if (missing >= intent.nonce) return { gap: false };
  if (await nonceHasAttempt(db.kysely, wallet, missing)) {
    return { gap: true, nonce: missing, fill: undefined };
  }
  const stored = await findNonceFill(db.kysely, wallet, missing);
  if (stored) return { gap: true, nonce: missing, fill: stored };
  const plan = await chain.planTransfer({ from, to: from, value: 0n });
  const signed = await chain.signTransfer(plan, missing);
  const fill = await db.transaction(async (trx) => {
    const now = clock.now();
    const kept = await storeNonceFill(trx, wallet, missing, signed, now);
    if (kept.txHash === signed.txHash) {
      await recordAudit(
        trx,
        {
          intentId: intent.id,
          action: 'nonce_gap_filled',
          actor: 'relayer',
          detail: { nonce: missing, txHash: kept.txHash, waitingNonce: intent.nonce },
        },
        now,
      );
    }
    return kept;
  });
  return { gap: true, nonce: missing, fill };
}
