import { heartbeat } from '@temporalio/activity';
import { WebhookEndpointDisabledError, WebhookEndpointGoneError } from '../../domain/errors';
import {
  dueDeliveries,
  nextAttemptAt,
  recordAttempt,
  type AttemptOutcome,
  type DueDelivery,
} from '../../store/webhook-deliveries';
import {
  findEndpoint,
  setEndpointStatus,
  type WebhookEndpoint,
} from '../../store/webhook-endpoints';
import type { SecretBox } from '../../webhooks/secret-box';
import { postWebhook } from '../../webhooks/sender';
import { webhookHeaders } from '../../webhooks/signing';
import { signingSettings, type SigningWebhookSettings } from '../../webhooks/settings';
import type { ActivityDependencies } from '../dependencies';

export interface PumpWebhooksParameters {
  endpointId: string;
  /** The first wait after a failed attempt (doubling, at most an hour), and how long to try. */
  retry: { initialMs: number; forHours: number };
  /** Attempts in flight at once to the endpoint (each for another intent). */
  concurrency: number;
}

export interface PumpWebhooksResult {
  /** When the next pending delivery is due (0: more now); undefined: nothing is pending. */
  nextInMs?: number;
}

/** How long one run delivers before it hands back to its workflow (a checkpoint). */
const runMs = 60_000;
const hourMs = 3_600_000;

/**
 * Delivers an endpoint's due events: the first pending event of each intent whose backoff has
 * passed, `concurrency` at a time, so a receiver sees each intent's events in order. Each attempt
 * sends the event's stored body (the bytes signed), `webhook-id` the event's id every time,
 * `webhook-timestamp` this attempt's time, signed with the endpoint's secret (and the previous one
 * during a rotation's grace). 2xx: delivered. 410: the endpoint is disabled and the run stops.
 * Anything else, or no answer in time: tried again after a doubling backoff (at most an hour),
 * until `retry.forHours` after the event, then it goes to the dead-letter list and its intent's
 * next event goes on. Every attempt is in the log. A worker dying mid-run loses nothing: the
 * deliveries it did not mark are sent again, the same webhook-id.
 */
export const pumpWebhooks = (deps: ActivityDependencies) => {
  const { db, clock, webhooks } = deps;

  return async ({
    endpointId,
    retry,
    concurrency,
  }: PumpWebhooksParameters): Promise<PumpWebhooksResult> => {
    const endpoint = await findEndpoint(db.kysely, endpointId);
    if (!endpoint || endpoint.status !== 'active') {
      throw new WebhookEndpointDisabledError(endpointId);
    }
    const settings = signingSettings(webhooks);
    const endsAt = Date.now() + runMs;
    for (;;) {
      const now = clock.now();
      const due = await dueDeliveries(db.kysely, endpointId, now, concurrency);
      if (due.length === 0) {
        const next = await nextAttemptAt(db.kysely, endpointId);
        return next ? { nextInMs: Math.max(0, next.getTime() - now.getTime()) } : {};
      }
      const outcomes = await Promise.all(
        due.map((delivery) => attempt(deps, endpoint, delivery, settings, retry)),
      );
      heartbeat();
      if (outcomes.includes('gone')) {
        await setEndpointStatus(
          db.kysely,
          endpointId,
          'disabled',
          'the receiver answered 410 Gone',
          clock.now(),
        );
        throw new WebhookEndpointGoneError(endpointId);
      }
      if (Date.now() > endsAt) return { nextInMs: 0 };
    }
  };
};

/** One attempt of one delivery; 'gone' when the receiver answered 410. */
async function attempt(
  { db, clock, failpoints }: ActivityDependencies,
  endpoint: WebhookEndpoint,
  delivery: DueDelivery,
  settings: SigningWebhookSettings,
  retry: PumpWebhooksParameters['retry'],
): Promise<'delivered' | 'failed' | 'gone'> {
  const { eventId } = delivery;
  const at = clock.now();
  const headers = webhookHeaders(eventId, at, delivery.body, secretsOf(endpoint, settings.box, at));
  const started = performance.now();
  let statusCode: number | null = null;
  let error: string | null = null;
  try {
    statusCode = await postWebhook(
      endpoint.url,
      delivery.body,
      headers,
      settings.policy,
      settings.timeoutMs,
    );
  } catch (failure) {
    error = (failure as Error).message;
  }
  const attempts = delivery.attempts + 1;
  const outcome = attemptOutcome(statusCode, attempts, delivery.createdAt, clock.now(), retry);
  if (outcome.status === 'delivered') failpoints?.reach('after-webhook-sent');
  await recordAttempt(
    db.kysely,
    {
      eventId,
      endpointId: endpoint.id,
      attempt: attempts,
      statusCode,
      error,
      durationMs: Math.round(performance.now() - started),
    },
    outcome,
    clock.now(),
  );
  if (outcome.status === 'delivered') return 'delivered';
  return statusCode === 410 ? 'gone' : 'failed';
}

/**
 * The secrets an attempt at `at` is signed with: the current one, and the previous in its grace.
 */
function secretsOf(endpoint: WebhookEndpoint, box: SecretBox, at: Date): string[] {
  const current = box.open(endpoint.sealedSecret);
  const { previous } = endpoint;
  return previous && previous.until > at ? [current, box.open(previous.sealedSecret)] : [current];
}

/** Delivered on a 2xx; else tried again after a doubling backoff until the retry window ends. */
function attemptOutcome(
  statusCode: number | null,
  attempts: number,
  createdAt: Date,
  now: Date,
  retry: PumpWebhooksParameters['retry'],
): AttemptOutcome {
  if (statusCode !== null && statusCode >= 200 && statusCode < 300) return { status: 'delivered' };
  // 410 Gone disables the endpoint: its deliveries wait, pending, until it is enabled again.
  if (statusCode === 410) return { status: 'pending' };
  const backoffMs = Math.min(retry.initialMs * 2 ** (attempts - 1), hourMs);
  const next = new Date(now.getTime() + backoffMs);
  return next.getTime() - createdAt.getTime() > retry.forHours * hourMs
    ? { status: 'dead' }
    : { status: 'pending', nextAttemptAt: next };
}
