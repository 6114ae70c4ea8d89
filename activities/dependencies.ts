import type { AdmissionLimits } from '../operations/admission';
import type { BroadcastOutcome, ChainRegistry } from '../chain/chain';
import type { Failpoints } from './failpoints';
import type { PauseWatch } from '../operations/pause-watch';
import type { Database } from '../store/database';
import type { PermitSource } from '../throttle/permit-source';
import type { Batch } from '../store/batches';
import type { Intent } from '../domain/intent';
import type { WalletTurn } from '../domain/wallet-turn';
import type { WebhookSettings } from '../webhooks/settings';
import type { DustMarks } from '../domain/deposit';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** How long ago an intent was submitted, by `clock`. */
export const ageMs = (intent: { createdAt: Date }, clock: Clock): number =>
  Math.max(0, clock.now().getTime() - intent.createdAt.getTime());

/**
 * Starts (or joins) the workflow of an intent or a batch, or tells an intent's workflow
 * something, through the worker's Temporal client: handed in by the worker, so steps never reach
 * for a client themselves.
 */
export interface RelayerWorkflows {
  startIntent(intent: Intent): Promise<void>;
  startBatch(batch: Batch): Promise<void>;
  /** Tells a batch item how far its wallet's turn lets it go (activities/wallet-turn.ts). */
  tellWalletTurn(intentId: string, turn: WalletTurn): Promise<void>;
}

/**
 * What the node said of a reorged-away transaction's bytes sent again ('no-bytes': none stored).
 */
export type ReorgFinding = BroadcastOutcome | 'no-bytes';

/** Everything a step touches, handed in so tests can pass real parts or fakes. */
export interface ActivityDependencies {
  db: Database;
  chains: ChainRegistry;
  throttle: PermitSource;
  clock: Clock;
  /** The task queue on which this process serves permit releases (see domain/task-queues.ts). */
  permitReleaseQueue: string;
  /** The API's admission limits, applied to batch items too; none: every item is admitted. */
  admission?: AdmissionLimits;
  /**
   * For the orphan sweep and a batch's wallet turns; none in the benchmark's in-process pool
   * (nothing is swept, and a batch item finds its turn on its own timer).
   */
  workflows?: RelayerWorkflows;
  /** How webhooks are delivered from this process; none: not from here. */
  webhooks?: WebhookSettings;
  /** Deposits below these are recorded, not credited (DEPOSIT_DUST_*); none: every one counts. */
  dustMarks?: DustMarks;
  /** Who the books charge gas to (GAS_PAID_BY); the house when not given. */
  gasPaidBy?: 'house' | 'tenant';
  /** Told of each intent the finality sweep marks final (the time-to-finality metric). */
  onFinalized?: (intent: Intent, finalizedAt: Date) => void;
  /**
   * Told of a confirmed intent whose transaction a reorg removed before its block was final, and
   * what sending its bytes again gave, and whether it went to review because they cannot land
   * (the operator's metric and log).
   */
  onReorgedBeforeFinality?: (intent: Intent, resent: ReorgFinding, flagged: boolean) => void;
  /** Moves a run off its pinned build (Worker Deployment Versioning); none: workers unversioned. */
  workflowVersions?: {
    allowUpgrade(execution: { workflowId: string; runId: string }): Promise<void>;
  };
  /** The operators' pauses in force (operations/pause-watch.ts); none: nothing is ever paused. */
  pauses?: PauseWatch;
  /** Where fault tests kill the process (CRASH_AT); none in normal running. */
  failpoints?: Failpoints;
}
