import { Throttle } from '../../throttle/throttle';

export interface ThrottleExampleResult {
  /** ms after the four requests were made, in grant order. */
  grantedAt: number[];
}

/**
 * The seed's Example_throttle: 2 sends per second, burst 1, four acquisitions at t=0. They are
 * granted about 500 ms apart — and never earlier, because the limiter is created after t0.
 */
export async function runThrottleExample(): Promise<ThrottleExampleResult> {
  const t0 = performance.now();
  const throttle = await Throttle.start({
    maxInFlight: 8,
    perSecond: 2,
    burst: 1,
    maxWaitMs: 10_000,
    permitTtlMs: 60_000,
  });
  const grantedAt = await Promise.all(
    [1, 2, 3, 4].map(async (n) => {
      const grant = await throttle.acquire(`acquire-${n}`);
      if (!grant.granted) throw new Error(`acquire #${n} refused: ${grant.reason}`);
      throttle.release(grant.permitId);
      return performance.now() - t0;
    }),
  );
  await throttle.close();
  return { grantedAt: grantedAt.sort((a, b) => a - b) };
}

const ms = (value: number) =>
  value < 1000 ? `${Math.round(value)}ms` : `${(value / 1000).toFixed(2)}s`;

if (require.main === module) {
  console.log('throttle 2/s, burst 1; four acquisitions requested at t+0');
  runThrottleExample()
    .then(({ grantedAt }) =>
      grantedAt.forEach((at, i) =>
        console.log(
          `acquire #${i + 1}  granted t+${ms(at).padEnd(7)} waited ${i === 0 && at < 50 ? 'nothing' : ms(at)}`,
        ),
      ),
    )
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
