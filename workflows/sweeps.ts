import { proxyActivities } from '@temporalio/workflow';
import type { RelayerActivities } from '../activities';
import type { MarkFinalizedParameters, MarkFinalizedResult } from '../activities/mark-finalized';
import type { ResumeOrphansParameters, ResumeOrphansResult } from '../activities/resume-orphans';
import type { SweepTopUpsParameters, SweepTopUpsResult } from '../activities/sweep-top-ups';
import type { ScanDepositsParameters, ScanDepositsResult } from '../activities/scan-deposits';
import type { SweepDepositsParameters, SweepDepositsResult } from '../activities/sweep-deposits';
import type { ReconcileChainDepositsResult } from '../activities/reconcile-chain-deposits';
import { sweepStep } from './activity-profiles';

/** The fleet's sweeps, each started by its schedule (client/sweep-schedules.ts). */
const {
  resumeOrphans,
  markFinalized,
  sweepTopUps,
  scanDeposits,
  sweepDeposits,
  reconcileChainDeposits,
} = proxyActivities<RelayerActivities>(sweepStep);

/** Starts the workflow of any intent or batch a crash left without one. */
export async function orphanSweep(input: ResumeOrphansParameters): Promise<ResumeOrphansResult> {
  return resumeOrphans(input);
}

/** Marks confirmed intents whose block is final on their chain. */
export async function finalitySweep(input: MarkFinalizedParameters): Promise<MarkFinalizedResult> {
  return markFinalized(input);
}

/** Tops up the chain's low hot wallets from its treasury. */
export async function topUpSweep(input: SweepTopUpsParameters): Promise<SweepTopUpsResult> {
  return sweepTopUps(input);
}

/** Finds what reached the chain's deposit addresses, and credits what is final. */
export async function depositScan(input: ScanDepositsParameters): Promise<ScanDepositsResult> {
  return scanDeposits(input);
}

/** Sweeps the chain's deposit addresses into its treasury, then reconciles its deposits. */
export async function depositUpkeep(
  input: SweepDepositsParameters,
): Promise<SweepDepositsResult & ReconcileChainDepositsResult> {
  const swept = await sweepDeposits(input);
  return { ...swept, ...(await reconcileChainDeposits(input)) };
}
