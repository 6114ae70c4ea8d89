import { setTimeout as sleep } from 'node:timers/promises';
import type { ErrorBody } from '../api/error-responses';

export interface ApiAnswer<T> {
  status: number;
  body: T;
  headers: Headers;
}

const maxRateLimitRetries = 3;

/** How long to wait before sending a request refused `rate_limited` again; undefined: do not. */
const rateLimitWait = (error: ApiError): number | undefined =>
  error.body.code === 'rate_limited' &&
  error.retryAfterSeconds !== undefined &&
  error.retryAfterSeconds <= 60
    ? Math.max(1, error.retryAfterSeconds)
    : undefined;

/** A refusal from the API, with its machine-readable code. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    readonly retryAfterSeconds?: number,
  ) {
    super(`${body.code}: ${body.message}`);
  }
}

/** A request's query: `?` and the parameters given, or nothing when none is. */
export function queryString(params: Record<string, string | number | undefined>): string {
  const given = Object.entries(params).filter(([, value]) => value !== undefined && value !== '');
  return given.length === 0
    ? ''
    : `?${new URLSearchParams(given.map(([key, value]): [string, string] => [key, String(value)]))}`;
}

/**
 * Requests to the relayer's HTTP API: a key, JSON in and out, a non-2xx answer thrown as an
 * ApiError, a request refused for the request limit sent again after its Retry-After.
 */
export class ApiTransport {
  constructor(
    readonly baseUrl: string,
    private readonly apiKey?: string,
    /** Told before a request refused for the request limit is sent again (seconds to wait). */
    private readonly onRateLimited?: (waitSeconds: number) => void,
  ) {}

  /**
   * One request. One refused `rate_limited` did nothing (the limit is checked before any route
   * runs), so it is sent again once its Retry-After has passed: up to three times, a minute at
   * most each; then the refusal is thrown.
   */
  async call<T>(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    options: { body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<ApiAnswer<T>> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.callOnce<T>(method, path, options);
      } catch (error) {
        const waitSeconds = error instanceof ApiError ? rateLimitWait(error) : undefined;
        if (waitSeconds === undefined || attempt > maxRateLimitRetries) throw error;
        this.onRateLimited?.(waitSeconds);
        await sleep(waitSeconds * 1000);
      }
    }
  }

  private async callOnce<T>(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    options: { body?: unknown; headers?: Record<string, string> },
  ): Promise<ApiAnswer<T>> {
    const response = await fetch(new URL(path, this.baseUrl), {
      method,
      headers: {
        ...(this.apiKey && { authorization: `Bearer ${this.apiKey}` }),
        ...(options.body !== undefined && { 'content-type': 'application/json' }),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await response.text();
    const body = (
      text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text
    ) as unknown;
    if (!response.ok) {
      const retryAfter = response.headers.get('retry-after');
      throw new ApiError(
        response.status,
        isErrorBody(body) ? body : { code: 'internal_error', message: String(text) },
        retryAfter === null ? undefined : Number(retryAfter),
      );
    }
    return { status: response.status, body: body as T, headers: response.headers };
  }
}

const isErrorBody = (body: unknown): body is ErrorBody =>
  typeof body === 'object' && body !== null && typeof (body as ErrorBody).code === 'string';
