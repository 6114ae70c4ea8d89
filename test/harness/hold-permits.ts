import { Throttle } from '../../throttle/throttle';

/**
 * Run as a child process: takes `count` permits from a clustered quota, says "held", and waits
 * to be killed — a worker dying with permits in hand.
 */
async function main(): Promise<void> {
  const [redisUrl, limiterId, count, settings] = process.argv.slice(2);
  const throttle = await Throttle.start(JSON.parse(settings!), {
    redisUrl: redisUrl!,
    limiterId: limiterId!,
  });
  for (let n = 0; n < Number(count); n++) {
    const grant = await throttle.acquire(`held-${n}`);
    if (!grant.granted) throw new Error(`could not take permit ${n}: ${grant.reason}`);
  }
  console.log('held');
  setInterval(() => undefined, 60_000);
}

void main();
