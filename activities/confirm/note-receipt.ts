import type { Intent } from '../../domain/intent';
import { recordAudit } from '../../store/audit-log';
import type { ActivityDependencies } from '../dependencies';
import { getIntentForUpdate, transitionIntent } from '../../store/intents';
import type { TransactionAttempt } from '../../store/transaction-attempts';
import type { Mined } from './finish';

/** Remembers the block a receipt was seen in (or that it vanished), to notice reorgs. */
export async function noteReceipt(
  { db, clock }: Pick<ActivityDependencies, 'db' | 'clock'>,
  intent: Intent,
  attempt: TransactionAttempt | undefined,
  seen?: Mined,
) {
  const blockNumber = seen?.blockNumber ?? null;
  if (intent.blockNumber === blockNumber && (!attempt || attempt.txHash === intent.txHash)) return;
  await db.transaction(async (trx) => {
    const now = clock.now();
    const current = await getIntentForUpdate(db, trx, intent.id);
    if (current.version !== intent.version) return;
    if (!seen) {
      await recordAudit(
        trx,
        {
          intentId: intent.id,
          action: 'receipt_reorged',
          actor: 'relayer',
          detail: { txHash: intent.txHash, blockNumber: String(intent.blockNumber) },
        },
        now,
      );
    }
    await transitionIntent(
      trx,
      current,
      {
        status: current.status,
        blockNumber,
        ...(attempt && { nonce: attempt.nonce, txHash: attempt.txHash, rawTx: attempt.rawTx }),
      },
      now,
    );
  });
}
