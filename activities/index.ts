import { acquireThrottle } from './acquire-throttle';
import { admitScheduledPayment } from './admit-scheduled-payment';
import { allowUpgrade } from './allow-upgrade';
import { tryAcquirePermit } from './try-acquire-permit';
import { admitBatchItem } from './batch/admit-batch-item';
import { cancelBatchItems } from './batch/cancel-batch-items';
import { decideBatchApproval } from './batch/decide-batch-approval';
import { loadBatchItems } from './batch/load-batch-items';
import { finishBatch, recordItemOutcome, skipPendingItems } from './batch/record-batch-outcomes';
import { broadcast } from './broadcast';
import { cancelUnmined } from './cancel-unmined';
import { closeIntent } from './close-intent';
import { confirm } from './confirm';
import { feeUnderCeiling } from './fee-ceiling';
import { decideApproval } from './decide-approval';
import { freeAbandonedLane } from './free-abandoned-lane';
import type { ActivityDependencies } from './dependencies';
import { hold } from './hold';
import { markSettling } from './mark-settling';
import { releaseThrottle } from './release-throttle';
import { resolveReview } from './resolve-review';
import { markFinalized } from './mark-finalized';
import { resumeOrphans } from './resume-orphans';
import { scanDeposits } from './scan-deposits';
import { speedUp } from './speed-up';
import { sweepDeposits } from './sweep-deposits';
import { reconcileChainDeposits } from './reconcile-chain-deposits';
import { sweepTopUps } from './sweep-top-ups';
import { walletTurnCame } from './wallet-turn';
import { pumpWebhooks } from './webhooks/pump-webhooks';

/** Every activity, bound to its dependencies. Workflows import only this function's type. */
export const createActivities = (deps: ActivityDependencies) => ({
  acquireThrottle: acquireThrottle(deps),
  tryAcquirePermit: tryAcquirePermit(deps),
  releaseThrottle: releaseThrottle(deps),
  walletTurnCame: walletTurnCame(deps),
  markSettling: markSettling(deps),
  hold: hold(deps),
  broadcast: broadcast(deps),
  feeUnderCeiling: feeUnderCeiling(deps),
  confirm: confirm(deps),
  closeIntent: closeIntent(deps),
  resolveReview: resolveReview(deps),
  cancelUnmined: cancelUnmined(deps),
  speedUp: speedUp(deps),
  decideApproval: decideApproval(deps),
  allowUpgrade: allowUpgrade(deps),
  freeAbandonedLane: freeAbandonedLane(deps),
  loadBatchItems: loadBatchItems(deps),
  decideBatchApproval: decideBatchApproval(deps),
  admitBatchItem: admitBatchItem(deps),
  recordItemOutcome: recordItemOutcome(deps),
  cancelBatchItems: cancelBatchItems(deps),
  skipPendingItems: skipPendingItems(deps),
  finishBatch: finishBatch(deps),
  resumeOrphans: resumeOrphans(deps),
  markFinalized: markFinalized(deps),
  sweepTopUps: sweepTopUps(deps),
  scanDeposits: scanDeposits(deps),
  sweepDeposits: sweepDeposits(deps),
  reconcileChainDeposits: reconcileChainDeposits(deps),
  pumpWebhooks: pumpWebhooks(deps),
  admitScheduledPayment: admitScheduledPayment(deps),
});

export type RelayerActivities = ReturnType<typeof createActivities>;
export type { ActivityDependencies } from './dependencies';
