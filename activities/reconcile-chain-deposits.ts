import { reconcileAndKeep } from '../operations/reconcile-deposits';
import type { ActivityDependencies } from './dependencies';
import { whileHeartbeating } from './liveness';

export interface ReconcileChainDepositsResult {
  /** Lines and books that disagree (0 too while the chain was never scanned). */
  differences: number;
}

/** Reconciles one chain's deposits and keeps the result (operations/reconcile-deposits.ts). */
export const reconcileChainDeposits =
  (deps: Pick<ActivityDependencies, 'db' | 'chains' | 'clock'>) =>
  ({ chainId }: { chainId: number }): Promise<ReconcileChainDepositsResult> =>
    whileHeartbeating(async () => {
      const { differences } = await reconcileAndKeep(
        deps.db,
        deps.chains.get(chainId),
        deps.clock.now(),
      );
      return { differences };
    });
