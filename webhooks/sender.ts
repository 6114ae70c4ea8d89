import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { addressRefusal, urlRefusal, type EndpointPolicy } from '../domain/webhooks';
import { inSpan } from '../domain/tracer';

/** Why a receiver was not reached, or was reached and refused: the delivery log says it. */
export class DeliveryRefusedError extends Error {
  constructor(
    message: string,
    /** The receiver's HTTP status, when it answered. */
    readonly statusCode?: number,
  ) {
    super(message);
    this.name = 'DeliveryRefusedError';
  }
}

/**
 * Resolves like the system does, and refuses an address webhooks may not reach: checked at
 * connect time, on the address actually dialled, so a name that resolved to a public address
 * when it was registered and to a private one now (DNS rebinding) is refused too.
 */
function guardedLookup(policy: EndpointPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 4);
      const list = addresses as LookupAddress[];
      const refused = list.map((entry) => addressRefusal(entry.address, policy)).find(Boolean);
      if (refused || list.length === 0) {
        return callback(new DeliveryRefusedError(`${hostname}: ${refused ?? 'no address'}`), '', 4);
      }
      if ((options as { all?: boolean }).all) return callback(null, list as never, 4);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/** Every address `hostname` resolves to, refused (with why) if any may not receive webhooks. */
export async function checkEndpointHost(url: string, policy: EndpointPolicy): Promise<void> {
  const refusal = urlRefusal(url, policy);
  if (refusal) throw new DeliveryRefusedError(refusal);
  const { hostname } = new URL(url);
  await new Promise<void>((resolve, reject) =>
    guardedLookup(policy)(hostname.replace(/^\[|\]$/g, ''), {}, (error) =>
      error ? reject(error) : resolve(),
    ),
  );
}

/**
 * POSTs `body` to `url` once, giving up after `timeoutMs`; resolves with the receiver's status
 * (any), rejects when it could not be reached or did not answer in time. The body is the exact
 * string that was signed.
 */
export function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  policy: EndpointPolicy,
  timeoutMs: number,
): Promise<number> {
  const refusal = urlRefusal(url, policy);
  if (refusal) return Promise.reject(new DeliveryRefusedError(refusal));
  const target = new URL(url);
  return inSpan('webhook delivery', { 'server.address': target.host }, () =>
    post(target, body, headers, policy, timeoutMs),
  );
}

function post(
  target: URL,
  body: string,
  headers: Record<string, string>,
  policy: EndpointPolicy,
  timeoutMs: number,
): Promise<number> {
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    // Past the deadline, hanging or slow: this attempt has failed, the next one comes later.
    const deadline = setTimeout(
      () => outgoing.destroy(new DeliveryRefusedError(`no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const settle = (settled: () => void) => {
      clearTimeout(deadline);
      settled();
    };
    const outgoing = request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: guardedLookup(policy),
      },
      (response) => {
        response.resume();
        response.on('end', () => settle(() => resolve(response.statusCode ?? 0)));
        response.on('error', (error) => settle(() => reject(error)));
      },
    );
    outgoing.on('error', (error) => settle(() => reject(error)));
    outgoing.end(body);
  });
}
