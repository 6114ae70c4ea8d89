import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { toRejection } from '../../api/error-responses';
import { httpStatusOf } from '../../domain/rejections';
import { exitCodeOf } from '../../cli/exit-codes';
import {
  InvalidIntentError,
  NotCancellableError,
  BacklogFullError,
  StaleVersionError,
  TenantLimitReachedError,
} from '../../domain/errors';
import { RejectionCode } from '../../domain/rejections';
import { drainTimeMs } from '../../operations/admission';
import { errorTable, rejectionTable, scopeTable } from '../../dev/rejection-table';

describe('one error vocabulary', () => {
  it('gives every code an HTTP status and a CLI exit code; only internal_error is a 5xx besides admission, a pause by an operator, webhooks or deposits left off by the operator and a workflow no worker runs', () => {
    for (const code of Object.values(RejectionCode)) {
      expect(httpStatusOf(code)).toBeGreaterThanOrEqual(400);
      expect(exitCodeOf[code]).toBeGreaterThan(0);
    }
    const serverSide = Object.values(RejectionCode).filter((code) => httpStatusOf(code) >= 500);
    expect(serverSide.sort()).toEqual([
      'closed',
      'deposits_off',
      'internal_error',
      'paused',
      'pool_full',
      'webhooks_off',
      'workflow_unanswered',
    ]);
  });

  it('is what docs/api.md documents, every code with its status, exit code and meaning', () => {
    const doc = readFileSync(resolve(__dirname, '../../docs/api.md'), 'utf8');
    expect(doc).toContain(rejectionTable());
    expect(doc).toContain(scopeTable());
    for (const code of Object.values(RejectionCode)) expect(doc).toContain(`| \`${code}\` |`);
  });

  it('is what docs/operations.md lists of every error: retried or not, its API answer and meaning', () => {
    const doc = readFileSync(resolve(__dirname, '../../docs/operations.md'), 'utf8');
    expect(doc).toContain(errorTable());
  });

  it('turns relayer errors into codes, keeping field issues, details and Retry-After', () => {
    const invalid = toRejection(new InvalidIntentError([{ field: 'to', message: 'bad' }]));
    expect(invalid).toMatchObject({
      code: 'invalid_request',
      extra: { issues: [{ field: 'to', message: 'bad' }] },
    });
    expect(toRejection(new TenantLimitReachedError('acme', 2))).toMatchObject({
      code: 'tenant_limit_reached',
      extra: { details: { tenantId: 'acme', limit: 2 } },
    });
    expect(toRejection(new BacklogFullError(100, 100, 10_000))).toMatchObject({
      code: 'pool_full',
      extra: { retryAfterMs: 10_000 },
    });
    expect(toRejection(new NotCancellableError('pi_1', 'signed')).message).toMatch(
      /may already be on-chain/,
    );
  });

  it('names what Fastify could not read, and hides everything else as internal', () => {
    const fastify = (statusCode: number, code: string) =>
      Object.assign(new Error('x'), { statusCode, code });
    expect(toRejection(fastify(415, 'FST_ERR_CTP_INVALID_MEDIA_TYPE')).code).toBe(
      'unsupported_media_type',
    );
    expect(toRejection(fastify(413, 'FST_ERR_CTP_BODY_TOO_LARGE')).code).toBe('body_too_large');
    expect(toRejection(fastify(400, 'FST_ERR_SOMETHING_NEW')).code).toBe('malformed_body');
    expect(toRejection(new TypeError('oops'))).toMatchObject({
      code: 'internal_error',
      message: expect.not.stringContaining('oops'),
    });
    // A retryable internal error is not something a request did wrong.
    expect(toRejection(new StaleVersionError('pi_1', 3)).code).toBe('internal_error');
  });
});

describe('Retry-After for a full backlog', () => {
  it('is the time the quota needs to send the backlog, at least a second', () => {
    expect(drainTimeMs(0, 10)).toBe(1000);
    expect(drainTimeMs(25, 10)).toBe(3000);
    expect(drainTimeMs(100, 10)).toBe(10_000);
  });
});
