import type { Kysely } from 'kysely';
import { BacklogFullError, TenantLimitReachedError, UnknownTenantError } from '../domain/errors';
import { IntentStatus, notYetSignedStatuses, openStatuses } from '../domain/intent';
import type { Database } from '../store/database';
import { countIntentsByStatus } from '../store/intents';
import type { Schema } from '../store/schema';
import { findTenant } from '../store/tenants';

export interface AdmissionLimits {
  /** Open intents a tenant may have when its own row sets no limit (the seed's maxPerUser, 2). */
  tenantMaxInFlight: number;
  /** Intents a tenant may have awaiting approval (they hold no open-intent slot). */
  maxAwaitingApproval: number;
  /** Intents accepted but not yet signed, across all tenants, before new ones are turned away. */
  backlogLimit: number;
  /** Sends per second of the RPC quota: how fast the backlog drains, for Retry-After. */
  perSecond: number;
  /** How long an Idempotency-Key names what it was first used for; absent: for ever. */
  idempotencyKeyTtlMs?: number;
}

/**
 * Taken first by every submit transaction, so two submits never both take the last slot nor
 * both insert the same Idempotency-Key.
 */
export const lockAdmission = (database: Database, trx: Kysely<Schema>): Promise<void> =>
  database.serialize(trx, 'payment-relayer:admission');

/**
 * Decides, inside the transaction that will insert the intent and after lockAdmission, whether
 * the tenant may open one more. Slots are counted from the intents table itself: an intent holds
 * its slot from insert until it ends, so a crash cannot leak one and a restart cannot forget one.
 */
export async function admit(
  trx: Kysely<Schema>,
  tenantId: string,
  limits: AdmissionLimits,
  awaitingApproval = false,
): Promise<void> {
  const tenant = await findTenant(trx, tenantId);
  if (!tenant) throw new UnknownTenantError(tenantId);
  const counts = await countIntentsByStatus(trx, tenantId);
  if (awaitingApproval) {
    // It takes no slot and sends nothing until approved: only its own limit applies.
    const limit = limits.maxAwaitingApproval;
    if ((counts[IntentStatus.awaitingApproval] ?? 0) >= limit) {
      throw new TenantLimitReachedError(tenantId, limit, 'intents awaiting approval');
    }
    return;
  }
  const limit = tenant.maxInFlight ?? limits.tenantMaxInFlight;
  const open = sumOf(counts, openStatuses);
  if (open >= limit) throw new TenantLimitReachedError(tenantId, limit);
  const backlog = sumOf(await countIntentsByStatus(trx), notYetSignedStatuses);
  if (backlog >= limits.backlogLimit) {
    throw new BacklogFullError(
      backlog,
      limits.backlogLimit,
      drainTimeMs(backlog, limits.perSecond),
    );
  }
}

/** How long the quota needs to send the backlog: when trying again is worth it. */
export const drainTimeMs = (backlog: number, perSecond: number): number =>
  Math.max(1000, Math.ceil(backlog / perSecond) * 1000);

const sumOf = (
  counts: Partial<Record<IntentStatus, number>>,
  statuses: Iterable<IntentStatus>,
): number => [...statuses].reduce((sum, status) => sum + (counts[status] ?? 0), 0);
