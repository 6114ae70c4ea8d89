import { z } from 'zod';
import { integer, onOff, optional, setting } from './parsers';

/** Telling tenants: the secrets key, delivery timeouts and retries, the delivery pool. */
export const webhooksSettings = {
  webhookSecretsKey: setting({
    env: 'WEBHOOK_SECRETS_KEY',
    fallback: '',
    doc: "The key webhook endpoints' signing secrets are encrypted with at rest: 32 bytes, base64 (`openssl rand -base64 32`); the same in every API and worker process. Unset: endpoints cannot be registered, and none is delivered to",
    secret: true,
    parse: optional(
      z
        .string()
        .transform((value) => Buffer.from(value, 'base64'))
        .refine((key) => key.length === 32, { error: 'must be 32 bytes, base64' }),
    ),
  }),
  webhookAllowLoopback: setting({
    env: 'WEBHOOK_ALLOW_LOOPBACK',
    fallback: 'false',
    doc: 'Lets webhook endpoints be on this machine (http://127.0.0.1, localhost): for development only. Private and link-local addresses stay refused. true or false (1/0, yes/no, on/off too)',
    parse: onOff,
  }),
  webhookTimeoutMs: setting({
    env: 'WEBHOOK_TIMEOUT_MS',
    fallback: '15000',
    doc: 'How long one delivery attempt waits for the receiver to answer',
    parse: integer(100, 120_000),
  }),
  webhookRetryInitialMs: setting({
    env: 'WEBHOOK_RETRY_INITIAL_MS',
    fallback: '5000',
    doc: 'The wait before a failed delivery is tried again, doubling each time (at most an hour between tries)',
    parse: integer(100, 3_600_000),
  }),
  webhookRetryHours: setting({
    env: 'WEBHOOK_RETRY_HOURS',
    fallback: '72',
    doc: 'How long a delivery is retried before it goes to the dead-letter list, in hours (decimals allowed: 0.01 is 36 s)',
    parse: z
      .string()
      .regex(/^\d+(\.\d+)?$/, { error: 'must be a number of hours, such as 72 or 0.5' })
      .transform(Number)
      .pipe(
        z
          .number()
          .min(0.001, { error: 'must be at least 0.001 (3.6 s)' })
          .max(24 * 30, { error: `must be at most ${24 * 30}` }),
      ),
  }),
  webhookRotationGraceMs: setting({
    env: 'WEBHOOK_ROTATION_GRACE_MS',
    fallback: '86400000',
    doc: "After a secret rotation, how long deliveries carry the old secret's signature beside the new one",
    parse: integer(0, 30 * 86_400_000),
  }),
  webhookDispatchMs: setting({
    env: 'WEBHOOK_DISPATCH_MS',
    fallback: '500',
    doc: "How soon a worker's sweep hands the events its steps stored to their delivery workflows (at most that often while steps end; with none, the gap doubles up to 5 s: events stored elsewhere, e.g. a redelivery through the API, wait that long)",
    parse: integer(50, 60_000),
  }),
  webhookPoolWidth: setting({
    env: 'WEBHOOK_POOL_WIDTH',
    fallback: '16',
    doc: 'Endpoints this process delivers to at once, on a task queue of its own (`<TASK_QUEUE>.webhooks`): payments never wait for a receiver',
    parse: integer(1, 1000),
  }),
  webhookConcurrency: setting({
    env: 'WEBHOOK_CONCURRENCY',
    fallback: '8',
    doc: 'Attempts in flight at once to one endpoint, each for another intent (an intent’s events go one at a time, in order)',
    parse: integer(1, 100),
  }),
};
