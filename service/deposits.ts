import type { CallerReference } from '../domain/caller-reference';
import { startScanAt } from '../store/deposit-scans';
import { depositAddressOf, depositSalt } from '../chain/deposit-addresses';
import type { Deposit, DepositStatus } from '../domain/deposit';
import { DepositsNotConfiguredError } from '../domain/errors';
import { listDeposits } from '../store/deposits';
import {
  depositAddressesOfTenant,
  ensureDepositAddress,
  type DepositAddress,
} from '../store/deposit-addresses';
import type { DepositReconciliation } from '../domain/deposit-reconciliation';
import { reconcileAndKeep } from '../operations/reconcile-deposits';
import { lastReconciliations } from '../store/deposit-reconciliations';
import type { ServiceDependencies } from './dependencies';

export type { DepositAddress };

type Deps = Pick<ServiceDependencies, 'database' | 'chains' | 'clock'>;

const chainsWithDeposits = ({ chains }: Pick<Deps, 'chains'>): number[] =>
  chains.chainIds.filter((chainId) => chains.get(chainId).depositFactory !== undefined);

/**
 * The tenant's deposit address of `index` on the chain (0 by default; more on request): worked
 * out from the chain's factory, stored once, the same on every call; `marks` given set its
 * reference and metadata, which each deposit found at it from then on carries. The chain's
 * deposit scan starts no later than the head now, so nothing sent to it from here on is missed.
 */
export async function depositAddressFor(
  deps: Deps,
  tenantId: string,
  chainId: number,
  index = 0,
  marks: CallerReference = {},
): Promise<DepositAddress> {
  const chain = deps.chains.get(chainId);
  const factory = chain.depositFactory;
  if (!factory) throw new DepositsNotConfiguredError(chainId, chainsWithDeposits(deps));
  const salt = depositSalt(tenantId, chainId, index);
  const now = deps.clock?.() ?? new Date();
  const head = await chain.blockNumber(0);
  const address = await ensureDepositAddress(
    deps.database.kysely,
    {
      chainId,
      address: depositAddressOf(factory, salt),
      tenantId,
      index,
      salt,
      factory,
      ...marks,
    },
    now,
  );
  await startScanAt(deps.database.kysely, chainId, head, now);
  return address;
}

export const depositAddressesOf = (deps: Deps, tenantId: string): Promise<DepositAddress[]> =>
  depositAddressesOfTenant(deps.database.kysely, tenantId);

export const depositsOf = (
  deps: Deps,
  tenantId: string,
  options: { limit: number; status?: DepositStatus },
): Promise<Deposit[]> => listDeposits(deps.database.kysely, tenantId, options);

/** Reconciles the chain's deposits now and keeps the result (operations/reconcile-deposits.ts). */
export function reconcileChain(deps: Deps, chainId: number): Promise<DepositReconciliation> {
  const chain = deps.chains.get(chainId);
  if (!chain.depositFactory)
    throw new DepositsNotConfiguredError(chainId, chainsWithDeposits(deps));
  return reconcileAndKeep(deps.database, chain, deps.clock?.() ?? new Date());
}

/** Each chain's last reconciliation that found differences, as /readyz words it. */
export async function reconciliationWarnings(deps: Pick<Deps, 'database'>): Promise<string[]> {
  const kept = await lastReconciliations(deps.database.kysely);
  return kept
    .filter((each) => each.differences > 0)
    .map(
      (each) =>
        `deposits on chain ${each.chainId}: ${each.differences} difference(s) between the chain and the books at block ${each.report.blockNumber} (${each.checkedAt.toISOString()}): relayer deposits reconcile --chain-id ${each.chainId}`,
    );
}

/** The differences each chain's last reconciliation found (the metric's reading). */
export const reconciliationDifferences = async (
  deps: Pick<Deps, 'database'>,
): Promise<{ chainId: number; differences: number }[]> =>
  (await lastReconciliations(deps.database.kysely)).map(({ chainId, differences }) => ({
    chainId,
    differences,
  }));
