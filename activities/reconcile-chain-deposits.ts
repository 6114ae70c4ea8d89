import { reconcileDeposits } from '../operations/reconcile-deposits';
import { saveReconciliation } from '../store/deposit-reconciliations';
import type { ActivityDependencies } from './dependencies';
import { whileHeartbeating } from './liveness';

export interface ReconcileChainDepositsResult {
  /** Lines and books that disagree (undefined: the chain was never scanned). */
  differences?: number;
}

/**
 * Reconciles one chain's deposits (operations/reconcile-deposits.ts) and keeps the result, which
 * the metric and /readyz read in every process.
 */
export const reconcileChainDeposits =
  (deps: Pick<ActivityDependencies, 'db' | 'chains' | 'clock'>) =>
  ({ chainId }: { chainId: number }): Promise<ReconcileChainDepositsResult> =>
    whileHeartbeating(async () => {
      const reconciliation = await reconcileDeposits(deps.db, deps.chains.get(chainId));
      if (!reconciliation) return {};
      await saveReconciliation(deps.db.kysely, reconciliation, deps.clock.now());
      return { differences: reconciliation.differences };
    });
