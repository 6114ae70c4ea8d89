import ipaddr from 'ipaddr.js';
import type { DelayDetail } from './delayed-notice';
import { IntentStatus, type Intent } from './intent';

// What a tenant is told: one event per state change of one of its intents, `intent.<status>`,
// as the Standard Webhooks scheme carries it (webhook-id, webhook-timestamp, webhook-signature).

/**
 * Every status an intent reaches; `intent.finalized`: a confirmed one's block is final;
 * `intent.delayed`: a payment still unmined past its chain's threshold (domain/delayed-notice.ts).
 */
export const webhookEventTypes = [
  ...Object.values(IntentStatus).map((status) => `intent.${status}` as const),
  'intent.finalized' as const,
  'intent.delayed' as const,
];
export type WebhookEventType = (typeof webhookEventTypes)[number];

/** An endpoint subscribed to `*` gets every type, those added later included. */
export const everyEventType = '*';

export const subscribesTo = (eventTypes: readonly string[], type: string): boolean =>
  eventTypes.includes(everyEventType) || eventTypes.includes(type);

/**
 * The intent as the event reports it, at the moment of the change: what the body carries, built
 * once when the change is stored, never again at send time.
 */
export function intentSnapshot(intent: Intent) {
  return {
    id: intent.id,
    tenantId: intent.tenantId,
    status: intent.status,
    chainId: intent.chainId,
    from: intent.from,
    to: intent.to,
    asset: intent.asset,
    amount: intent.amount.toString(),
    deliveredAmount: intent.deliveredAmount?.toString() ?? null,
    feePaid: intent.feePaid?.toString() ?? null,
    nonce: intent.nonce,
    txHash: intent.txHash,
    blockNumber: intent.blockNumber?.toString() ?? null,
    reason: intent.reason,
    reasonCode: intent.reasonCode,
    createdAt: intent.createdAt.toISOString(),
    updatedAt: intent.updatedAt.toISOString(),
    finalizedAt: intent.finalizedAt?.toISOString() ?? null,
    validUntil: intent.validUntil?.toISOString() ?? null,
    notBefore: intent.notBefore?.toISOString() ?? null,
    reference: intent.reference ?? null,
    metadata: { ...intent.metadata },
  };
}

/** The body of an event, serialized once: the bytes every attempt sends and signs. */
export function eventBody(
  intent: Intent,
  change: {
    sequence: number;
    previousStatus: IntentStatus | null;
    at: Date;
    type?: string;
    /** What an `intent.delayed` adds: what the relayer did and will do. */
    delay?: DelayDetail;
  },
): string {
  return JSON.stringify({
    type: change.type ?? `intent.${intent.status}`,
    timestamp: change.at.toISOString(),
    data: {
      sequence: change.sequence,
      previousStatus: change.previousStatus,
      intent: intentSnapshot(intent),
      ...(change.delay && { delay: change.delay }),
    },
  });
}

/** Where a webhook may go: `public` addresses only, or loopback too when an operator allows it. */
export interface EndpointPolicy {
  allowLoopback: boolean;
}

/**
 * Why a resolved address may not receive webhooks (private, loopback, link-local and other
 * non-public ranges: a receiver there is a way into the relayer's own network), or undefined.
 */
export function addressRefusal(address: string, policy: EndpointPolicy): string | undefined {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  const range = ipaddr.process(address).range();
  if (range === 'unicast') return undefined;
  if (range === 'loopback' && policy.allowLoopback) return undefined;
  return `${address} is a ${range} address`;
}

/**
 * Why a URL may not be a webhook endpoint before its host is looked up (not https; http only to
 * a loopback host when loopback is allowed), or undefined.
 */
export function urlRefusal(raw: string, policy: EndpointPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `"${raw}" is not a URL`;
  }
  if (url.username || url.password) return 'a URL with credentials in it is refused';
  if (url.protocol === 'https:') return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const loopbackHost =
    host === 'localhost' || (ipaddr.isValid(host) && ipaddr.process(host).range() === 'loopback');
  if (url.protocol === 'http:' && policy.allowLoopback && loopbackHost) return undefined;
  return `${url.protocol.replace(':', '')} is refused: endpoints take https${policy.allowLoopback ? ' (or http to a loopback host)' : ''}`;
}

/** Where a delivery of an event to one endpoint stands: `dead` once its retries ran out. */
export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'dead';
