import { Counter, Histogram, type Registry } from 'prom-client';
import type { ActivityDependencies } from '../activities';
import type { Intent } from '../domain/intent';
import { log } from '../domain/log';

/**
 * A confirmed payment a reorg removed before its block was final: counted, and told to the
 * operator (its bytes were sent again; `resent` says what the node answered).
 */
export function reorgsBeforeFinality(
  metrics: Registry,
): NonNullable<ActivityDependencies['onReorgedBeforeFinality']> {
  const reorged = new Counter({
    name: 'relayer_reorged_before_finality_total',
    help: 'Confirmed intents whose transaction a reorg removed before its block was final (the same bytes sent again), by chain, what the node answered, and whether the intent went to review because the bytes cannot land',
    labelNames: ['chain_id', 'resent', 'flagged'] as const,
    registers: [metrics],
  });
  return (intent, resent, flagged) => {
    reorged.inc({ chain_id: String(intent.chainId), resent, flagged: String(flagged) });
    log.warn(
      `intent ${intent.id} on chain ${intent.chainId}: its confirmed transaction ${intent.txHash} was reorged away before its block was final; ` +
        `its same bytes were sent again (${resent})` +
        (flagged
          ? ': they cannot land (their nonce went to another transaction), so the intent is in needs_review, its payment still captured: confirm it with the transaction that paid it, or fail it (the capture is reversed)'
          : resent === 'sent' || resent === 'already-known'
            ? ''
            : ': look at it — they may not land'),
    );
  };
}

/** The finality sweep's metric: from confirmed to final, per chain. */
export function timeToFinality(metrics: Registry): (intent: Intent, finalizedAt: Date) => void {
  const seconds = new Histogram({
    name: 'relayer_time_to_finality_seconds',
    help: "From an intent's confirmation to its block being final on its chain (FINALITY), as the finality sweep saw it",
    labelNames: ['chain_id'] as const,
    buckets: [5, 15, 30, 60, 120, 300, 600, 900, 1800, 3600],
    registers: [metrics],
  });
  return (intent, finalizedAt) =>
    seconds.observe(
      { chain_id: String(intent.chainId) },
      Math.max(0, (finalizedAt.getTime() - intent.updatedAt.getTime()) / 1000),
    );
}
