import type { Chain } from '../chain/chain';
import { IntentStatus, type Intent } from '../domain/intent';
import { ReasonCode } from '../domain/reason-codes';
import { recordAudit } from '../store/audit-log';
import { getIntentForUpdate, transitionIntent } from '../store/intents';
import {
  confirmedAwaitingFinality,
  markIntentFinalized,
  moveToBlock,
} from '../store/intent-finality';
import { listAttempts } from '../store/transaction-attempts';
import type { ActivityDependencies, ReorgFinding } from './dependencies';
import { whileHeartbeating } from './liveness';

export interface MarkFinalizedParameters {
  /** The most intents looked at per chain in one sweep (the next sweep takes the rest). */
  limit: number;
}

export interface MarkFinalizedResult {
  /** Chain id → intents marked final this sweep. */
  finalized: Record<string, number>;
  /** Chain id → confirmed intents whose transaction a reorg removed (re-sent), when any. */
  reorged?: Record<string, number>;
  /** Chain id → those whose bytes can no longer land, put in needs_review, when any. */
  flagged?: Record<string, number>;
}

/**
 * The node's answers that say the bytes can never be mined: another transaction took their
 * nonce (or the bytes are not stored). `replace-needed` is not one: what holds the nonce is in
 * the pool, perhaps another of the intent's own attempts, and the next sweep sees what is mined.
 */
const cannotLand: ReadonlySet<ReorgFinding> = new Set(['nonce-taken', 'no-bytes']);

/** What the sweep found of a confirmed transaction, at the chain's final block. */
type FinalLook = 'final' | 'moved' | 'pending' | 'reorged' | 'flagged';

/**
 * Confirmed intents whose block their chain's final block has reached get `finalizedAt`, with
 * the webhook `intent.finalized`, in bulk per chain: one read of the final block, one indexed
 * query, then for each its receipt asked of the node once. Found at or below the final block, it
 * is marked final in one compare-and-set on `finalized_at` (a sweep run twice, or two at once,
 * marks each once). Found mined later (a reorg moved it): its block is moved, and finality waits
 * for that one. Gone (a reorg removed it and the node forgot it): the same persisted bytes are
 * sent again — never new ones, so it cannot pay twice — audited, counted and logged for the
 * operator. If those bytes can no longer land (their nonce went to another transaction), the
 * intent goes to needs_review, its capture standing: the books change only by the operator's
 * decision there (confirm with the transaction that paid it, or fail, which reverses the
 * capture). Intent workflows are long closed: this needs none.
 */
export const markFinalized =
  (
    deps: Pick<
      ActivityDependencies,
      'db' | 'chains' | 'clock' | 'onFinalized' | 'onReorgedBeforeFinality'
    >,
  ) =>
  ({ limit }: MarkFinalizedParameters): Promise<MarkFinalizedResult> =>
    whileHeartbeating(async () => {
      const { db, chains } = deps;
      const result: MarkFinalizedResult = { finalized: {} };
      for (const chainId of chains.chainIds) {
        const chain = chains.get(chainId);
        const head = await chain.finalizedBlock();
        const due = await confirmedAwaitingFinality(db.kysely, chainId, head, limit);
        const looks: FinalLook[] = [];
        for (const intent of due) looks.push(await lookAtFinality(deps, chain, intent, head));
        result.finalized[String(chainId)] = looks.filter((look) => look === 'final').length;
        const reorged = looks.filter((look) => look === 'reorged' || look === 'flagged').length;
        if (reorged > 0) (result.reorged ??= {})[String(chainId)] = reorged;
        const flagged = looks.filter((look) => look === 'flagged').length;
        if (flagged > 0) (result.flagged ??= {})[String(chainId)] = flagged;
      }
      return result;
    });

async function lookAtFinality(
  deps: Pick<ActivityDependencies, 'db' | 'clock' | 'onFinalized' | 'onReorgedBeforeFinality'>,
  chain: Chain,
  intent: Intent,
  finalBlock: bigint,
): Promise<FinalLook> {
  const { db, clock } = deps;
  const seen = await chain.observeAtNode(intent.txHash!);
  if (seen.state === 'mined' && seen.blockNumber <= finalBlock) {
    const now = clock.now();
    if (!(await markIntentFinalized(db, intent, now))) return 'pending';
    deps.onFinalized?.(intent, now);
    return 'final';
  }
  if (seen.state === 'mined') {
    await moveToBlock(db.kysely, intent.id, seen.blockNumber);
    return 'moved';
  }
  // In the node's pool (sent again by an earlier sweep): a block will take it.
  if (seen.state === 'pending') return 'pending';
  const attempt = (await listAttempts(db.kysely, intent.id)).find(
    (a) => a.txHash === intent.txHash,
  );
  const resent: ReorgFinding = attempt
    ? await chain.broadcast({ rawTx: attempt.rawTx, txHash: attempt.txHash })
    : 'no-bytes';
  const flagged = cannotLand.has(resent);
  const now = clock.now();
  await db.transaction(async (trx) => {
    const detail = { txHash: intent.txHash, blockNumber: intent.blockNumber?.toString(), resent };
    if (flagged) {
      const current = await getIntentForUpdate(db, trx, intent.id);
      // Marked final or flagged by another sweep meanwhile (a node that saw otherwise).
      if (current.status !== IntentStatus.confirmed || current.finalizedAt) return;
      await transitionIntent(
        trx,
        current,
        {
          status: IntentStatus.needsReview,
          reason: {
            code: ReasonCode.reorgedAway,
            text:
              `its confirmed transaction ${intent.txHash} (block ${intent.blockNumber}) was ` +
              `reorged away before its block was final and cannot be mined again (${resent}): ` +
              `the payment stands captured until an operator confirms it with the transaction ` +
              `that paid it, or fails it (the capture is reversed)`,
          },
        },
        now,
      );
    }
    await recordAudit(
      trx,
      { intentId: intent.id, action: 'reorged_before_finality', actor: 'relayer', detail },
      now,
    );
  });
  deps.onReorgedBeforeFinality?.(intent, resent, flagged);
  return flagged ? 'flagged' : 'reorged';
}
