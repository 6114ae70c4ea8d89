import { randomBytes } from 'node:crypto';
import {
  InvalidIntentError,
  WebhookEndpointNotFoundError,
  WebhookUrlRefusedError,
} from '../domain/errors';
import { operatorOwner } from '../domain/custody';
import { walletEventTypes } from '../domain/wallet-events';
import { depositEventTypes } from '../domain/deposit';
import { everyEventType, webhookEventTypes } from '../domain/webhooks';
import type { WebhookDeliveryStatus } from '../domain/webhooks';
import { deliveriesOf, redeliver, type DeliveryRow } from '../store/webhook-deliveries';
import {
  findEndpoint,
  insertEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  setEndpointStatus,
  type WebhookEndpoint,
} from '../store/webhook-endpoints';
import { newWebhookSecret } from '../webhooks/secret-box';
import { signingSettings } from '../webhooks/settings';
import { checkEndpointHost } from '../webhooks/sender';
import type { Caller } from './caller';
import type { ServiceDependencies } from './dependencies';

export type { DeliveryRow };

type Deps = Pick<ServiceDependencies, 'database' | 'clock' | 'webhooks'>;

export interface EndpointView {
  id: string;
  tenantId: string;
  url: string;
  eventTypes: string[];
  status: string;
  disabledReason: string | null;
  createdAt: string;
}

const viewOf = (endpoint: WebhookEndpoint): EndpointView => ({
  id: endpoint.id,
  tenantId: endpoint.tenantId,
  url: endpoint.url,
  eventTypes: endpoint.eventTypes,
  status: endpoint.status,
  disabledReason: endpoint.disabledReason,
  createdAt: endpoint.createdAt.toISOString(),
});

const settingsOf = (deps: Deps) => signingSettings(deps.webhooks);

/**
 * Registers an endpoint of the caller: a tenant's is told of its intents; an operator's (owned by
 * `@operator`) of the relayer's own wallets (`wallet.low_balance`, `wallet.topped_up`,
 * `treasury.low_balance`) and of its top-ups' `intent.<status>`. `https` only (http to loopback
 * only where an operator allows it), and every address its host resolves to public — checked now
 * and again at each connection. Event types default to `*`. The secret (`whsec_…`) is in the
 * answer once and stored encrypted; nothing is written for a refused endpoint.
 */
export async function registerEndpoint(
  deps: Deps,
  caller: Caller,
  request: { url: string; eventTypes?: string[] },
): Promise<EndpointView & { secret: string }> {
  const { box, policy } = settingsOf(deps);
  const eventTypes = request.eventTypes ?? [everyEventType];
  const tenantTypes = [...webhookEventTypes, ...depositEventTypes];
  const known: readonly string[] =
    caller.role === 'operator' ? [...tenantTypes, ...walletEventTypes] : tenantTypes;
  const unknown = eventTypes.filter((type) => type !== everyEventType && !known.includes(type));
  if (unknown.length > 0 || eventTypes.length === 0) {
    const operatorsOnly = unknown.filter((type) =>
      (walletEventTypes as readonly string[]).includes(type),
    );
    throw new InvalidIntentError([
      {
        field: 'eventTypes',
        message:
          eventTypes.length === 0
            ? 'name at least one event type (or "*")'
            : operatorsOnly.length > 0
              ? `${operatorsOnly.join(', ')}: told to the operators' endpoints only (registered with an operator key)`
              : `unknown event type ${unknown.map((type) => `"${type}"`).join(', ')}: one of ${known.join(', ')}, or "*"`,
      },
    ]);
  }
  const tenantId = caller.role === 'tenant' ? caller.tenantId : operatorOwner;
  try {
    await checkEndpointHost(request.url, policy);
  } catch (error) {
    throw new WebhookUrlRefusedError(request.url, (error as Error).message);
  }
  const secret = newWebhookSecret();
  const endpoint = {
    id: `we_${randomBytes(10).toString('hex')}`,
    tenantId,
    url: request.url,
    eventTypes,
    sealedSecret: box.seal(secret),
  };
  const now = deps.clock?.() ?? new Date();
  await insertEndpoint(deps.database.kysely, endpoint, now);
  return { ...viewOf((await findEndpoint(deps.database.kysely, endpoint.id))!), secret };
}

/** The caller's endpoint (an operator's: any); another tenant's is not found. */
async function endpointOf(deps: Deps, caller: Caller, id: string): Promise<WebhookEndpoint> {
  const endpoint = await findEndpoint(deps.database.kysely, id);
  if (!endpoint || (caller.role === 'tenant' && endpoint.tenantId !== caller.tenantId)) {
    throw new WebhookEndpointNotFoundError(id);
  }
  return endpoint;
}

export async function endpointsFor(deps: Deps, caller: Caller): Promise<EndpointView[]> {
  const tenantId = caller.role === 'tenant' ? caller.tenantId : undefined;
  return (await listEndpoints(deps.database.kysely, tenantId)).map(viewOf);
}

/**
 * A new secret for the endpoint, in the answer once; deliveries carry both signatures (new and
 * old) for the rotation's grace, so the receiver can switch without missing one.
 */
export async function rotateSecret(
  deps: Deps,
  caller: Caller,
  id: string,
): Promise<{ secret: string; previousValidUntil: string }> {
  const { box, rotationGraceMs } = settingsOf(deps);
  const endpoint = await endpointOf(deps, caller, id);
  const secret = newWebhookSecret();
  const now = deps.clock?.() ?? new Date();
  const until = new Date(now.getTime() + rotationGraceMs);
  await rotateEndpointSecret(deps.database.kysely, endpoint, box.seal(secret), until, now);
  return { secret, previousValidUntil: until.toISOString() };
}

/** Enables an endpoint again (after a 410), or disables it; its pending deliveries resume. */
export async function setEndpointEnabled(
  deps: Deps,
  caller: Caller,
  id: string,
  enabled: boolean,
): Promise<EndpointView> {
  const endpoint = await endpointOf(deps, caller, id);
  const now = deps.clock?.() ?? new Date();
  await setEndpointStatus(
    deps.database.kysely,
    endpoint.id,
    enabled ? 'active' : 'disabled',
    enabled ? null : `disabled by ${caller.role === 'tenant' ? 'the tenant' : 'an operator'}`,
    now,
  );
  if (enabled) {
    // Its deliveries stopped with it: each lane's sweep hands them over again.
    for (const delivery of await deliveriesOf(deps.database.kysely, endpoint.id, {
      status: 'pending',
      limit: 10_000,
    })) {
      await redeliver(deps.database.kysely, delivery.eventId, endpoint.id, now);
    }
  }
  return viewOf((await findEndpoint(deps.database.kysely, endpoint.id))!);
}

/** The delivery log of an endpoint, newest first; `dead`: the dead-letter list. */
export async function deliveriesFor(
  deps: Deps,
  caller: Caller,
  id: string,
  query: { status?: WebhookDeliveryStatus; limit: number },
): Promise<DeliveryRow[]> {
  const endpoint = await endpointOf(deps, caller, id);
  return deliveriesOf(deps.database.kysely, endpoint.id, query);
}

/** Sends an event to the endpoint again (a dead letter, or one delivered already). */
export async function redeliverEvent(
  deps: Deps,
  caller: Caller,
  endpointId: string,
  eventId: string,
): Promise<void> {
  const endpoint = await endpointOf(deps, caller, endpointId);
  const now = deps.clock?.() ?? new Date();
  if (!(await redeliver(deps.database.kysely, eventId, endpoint.id, now))) {
    throw new InvalidIntentError([
      { field: 'eventId', message: `event ${eventId} was never sent to ${endpointId}` },
    ]);
  }
}
