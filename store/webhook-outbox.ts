import type { Kysely } from 'kysely';
import { isTopUp, operatorOwner } from '../domain/custody';
import { IntentStatus, type Intent } from '../domain/intent';
import type { DelayDetail } from '../domain/delayed-notice';
import { eventBody, subscribesTo } from '../domain/webhooks';
import { walletEventBody, walletSubject, type WalletEvent } from '../domain/wallet-events';
import type { Schema } from './schema';
import { depositEventBody, type Deposit, type DepositEventType } from '../domain/deposit';

/**
 * The outbox: called inside the transaction that changes an intent's status, it stores the event
 * that reports the change — its body serialized now, as it will be sent — and a pending delivery
 * for each active endpoint of the tenant subscribed to it. Nothing at all when none is: tenants
 * without webhooks pay one indexed read per change. A top-up that is confirmed also tells the
 * operators `wallet.topped_up`.
 */
export async function recordStateChange(
  trx: Kysely<Schema>,
  intent: Intent,
  previousStatus: IntentStatus | null,
  now: Date,
  type: string = `intent.${intent.status}`,
  delay?: DelayDetail,
): Promise<void> {
  await recordEvent(trx, {
    tenantId: intent.tenantId,
    subject: intent.id,
    idStem: intent.id.replace(/^pi_/, ''),
    type,
    previousStatus,
    now,
    body: (sequence) => eventBody(intent, { sequence, previousStatus, at: now, type, delay }),
  });
  // Once, when it is confirmed (not again when it is marked final).
  if (isTopUp(intent) && type === `intent.${IntentStatus.confirmed}`) {
    await recordWalletEvent(
      trx,
      {
        type: 'wallet.topped_up',
        chainId: intent.chainId,
        wallet: intent.to,
        asset: intent.asset,
        amount: intent.amount,
        topUpId: intent.id,
        txHash: intent.txHash,
      },
      now,
    );
  }
}

/**
 * Stores an event about a wallet for the operators' endpoints (owned by `@operator`), in the
 * caller's transaction; its sequence counts per wallet, so a receiver sees a wallet's events in
 * order.
 */
export async function recordWalletEvent(
  trx: Kysely<Schema>,
  event: WalletEvent,
  now: Date,
): Promise<void> {
  const subject = walletSubject(event.chainId, event.wallet);
  await recordEvent(trx, {
    tenantId: operatorOwner,
    subject,
    idStem: subject.replaceAll(':', '_').toLowerCase(),
    type: event.type,
    previousStatus: null,
    now,
    body: (sequence) => walletEventBody(event, { sequence, at: now }),
  });
}

/** Stores an event about a tenant's deposit for its endpoints, in the caller's transaction. */
export async function recordDepositEvent(
  trx: Kysely<Schema>,
  deposit: Deposit,
  type: DepositEventType,
  now: Date,
): Promise<void> {
  await recordEvent(trx, {
    tenantId: deposit.tenantId,
    subject: deposit.id,
    idStem: deposit.id.replace(/^dep_/, ''),
    type,
    previousStatus: null,
    now,
    body: (sequence) => depositEventBody(deposit, { type, sequence, at: now }),
  });
}

interface NewEvent {
  /** Whose endpoints are told. */
  tenantId: string;
  /** What the event is about: its sequence counts per subject. */
  subject: string;
  /** The event ids' middle part: `evt_<stem>_<sequence>`. */
  idStem: string;
  type: string;
  previousStatus: IntentStatus | null;
  now: Date;
  body: (sequence: number) => string;
}

async function recordEvent(trx: Kysely<Schema>, event: NewEvent): Promise<void> {
  const endpoints = (
    await trx
      .selectFrom('webhook_endpoints')
      .select(['id', 'event_types'])
      .where('tenant_id', '=', event.tenantId)
      .where('status', '=', 'active')
      .execute()
  ).filter((endpoint) => subscribesTo(JSON.parse(endpoint.event_types) as string[], event.type));
  if (endpoints.length === 0) return;
  const last = await trx
    .selectFrom('webhook_events')
    .select((eb) => eb.fn.max('sequence').as('sequence'))
    .where('intent_id', '=', event.subject)
    .executeTakeFirst();
  const sequence = Number(last?.sequence ?? 0) + 1;
  const eventId = `evt_${event.idStem}_${sequence}`;
  const at = event.now.toISOString();
  await trx
    .insertInto('webhook_events')
    .values({
      id: eventId,
      tenant_id: event.tenantId,
      intent_id: event.subject,
      sequence,
      type: event.type,
      previous_status: event.previousStatus,
      body: event.body(sequence),
      created_at: at,
    })
    .execute();
  await trx
    .insertInto('webhook_deliveries')
    .values(
      endpoints.map((endpoint) => ({
        event_id: eventId,
        endpoint_id: endpoint.id,
        intent_id: event.subject,
        sequence,
        status: 'pending' as const,
        attempts: 0,
        next_attempt_at: at,
        created_at: at,
        updated_at: at,
      })),
    )
    .execute();
}
