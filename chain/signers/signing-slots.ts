import Bottleneck from 'bottleneck';

/** Runs a signing request when one of the signer's slots is free. */
export type SigningSlots = <T>(request: () => Promise<T>) => Promise<T>;

/**
 * At most `concurrency` requests in flight to one signer (a KMS account and region, or a remote
 * signer's URL): KMS has request quotas, and a remote signer is one server. The rest queue here.
 */
export function signingSlots(concurrency: number): SigningSlots {
  const limiter = new Bottleneck({ maxConcurrent: concurrency });
  return (request) => limiter.schedule(request);
}
