import type { BroadcastOutcome, Chain } from '../chain/chain';
import type { Intent } from '../domain/intent';
import { recordAudit } from '../store/audit-log';
import { confirmedAwaitingFinality, markIntentFinalized, moveToBlock } from '../store/intents';
import { listAttempts } from '../store/transaction-attempts';
import type { ActivityDependencies } from './dependencies';
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
}

/** What the sweep found of a confirmed transaction, at the chain's final block. */
type FinalLook = 'final' | 'moved' | 'pending' | 'reorged';

/**
 * Confirmed intents whose block their chain's final block has reached get `finalizedAt`, with
 * the webhook `intent.finalized`, in bulk per chain: one read of the final block, one indexed
 * query, then for each its receipt asked of the node once. Found at or below the final block, it
 * is marked final in one compare-and-set on `finalized_at` (a sweep run twice, or two at once,
 * marks each once). Found mined later (a reorg moved it): its block is moved, and finality waits
 * for that one. Gone (a reorg removed it and the node forgot it): the same persisted bytes are
 * sent again — never new ones, so it cannot pay twice — audited, counted and logged for the
 * operator; the books are not touched. Intent workflows are long closed: this needs none.
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
        const reorged = looks.filter((look) => look === 'reorged').length;
        if (reorged > 0) (result.reorged ??= {})[String(chainId)] = reorged;
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
  const resent: BroadcastOutcome | 'no-bytes' = attempt
    ? await chain.broadcast({ rawTx: attempt.rawTx, txHash: attempt.txHash })
    : 'no-bytes';
  await recordAudit(
    db.kysely,
    {
      intentId: intent.id,
      action: 'reorged_before_finality',
      actor: 'relayer',
      detail: { txHash: intent.txHash, blockNumber: intent.blockNumber?.toString(), resent },
    },
    clock.now(),
  );
  deps.onReorgedBeforeFinality?.(intent, resent);
  return 'reorged';
}
