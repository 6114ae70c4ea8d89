import Redis from 'ioredis';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { RpcBudget } from '../../throttle/rpc-budget';
import { presetWeights } from '../../throttle/rpc-weights';
import type { LinePlace } from '../../throttle/line-places';
import type { PermitLine } from '../../throttle/permit-line';
import { sharedPermitLine } from '../../throttle/shared-permit-line';
import { sharedSpendWindow } from '../../throttle/shared-spend-window';
import { limiterBeatMs, Throttle, type ThrottleSettings } from '../../throttle/throttle';
import { startRedis, type RedisServer } from '../harness/stack/redis';
import { log } from '../../domain/log';

const settings: ThrottleSettings = {
  maxInFlight: 2,
  perSecond: 100,
  burst: 10,
  maxWaitMs: 500,
  permitTtlMs: 1500,
};

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis?.stop());

describe('the quota clustered on Redis 7 (Bottleneck)', () => {
  it('counts permits across processes: two limiters share maxInFlight', async () => {
    const cluster = { redisUrl: redis.url, limiterId: 'shared-in-flight' };
    const [a, b] = await Promise.all([
      Throttle.start(settings, cluster),
      Throttle.start(settings, cluster),
    ]);
    try {
      expect((await a.acquire('a1')).granted).toBe(true);
      expect((await b.acquire('b1')).granted).toBe(true);
      expect(await a.acquire('a2')).toMatchObject({ granted: false, reason: 'timeout' });
      b.release('b1');
      expect((await a.acquire('a3')).granted).toBe(true);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('reclaims a permit whose holder went away without releasing it', async () => {
    const cluster = { redisUrl: redis.url, limiterId: 'reclaim' };
    const holder = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(__dirname, '../harness/hold-permits.ts'),
        redis.url,
        cluster.limiterId,
        '2',
        JSON.stringify(settings),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) =>
      holder.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('held') && resolve()),
    );
    // The holder dies without a word; only the expiration in Redis can free its permits.
    holder.kill('SIGKILL');
    // A waiter in line sees it at the first beat after the expiration; it may wait longer than
    // that, so the bound below is the beat's, not the wait's.
    const reclaimedWithin = settings.permitTtlMs + limiterBeatMs + 1500;
    const other = await Throttle.start({ ...settings, maxWaitMs: 2 * reclaimedWithin }, cluster);
    try {
      const started = Date.now();
      expect((await other.acquire('after')).granted).toBe(true);
      expect(Date.now() - started).toBeLessThan(reclaimedWithin);
    } finally {
      await other.close();
    }
  });

  it('recovers when its Redis state vanishes (Bottleneck alone fails for good on Redis 7)', async () => {
    const logged = jest.spyOn(log, 'error').mockImplementation(() => undefined);
    const throttle = await Throttle.start(settings, { redisUrl: redis.url, limiterId: 'flushed' });
    try {
      const first = await throttle.acquire('before');
      expect(first.granted).toBe(true);
      if (first.granted) throttle.release(first.permitId);
      const client = new Redis(redis.url);
      await client.flushall();
      client.disconnect();
      // The acquisition that finds the state gone is refused (the intent simply asks again), or
      // served if a beat of the limiter found it gone first and recreated it …
      const during = await throttle.acquire('during');
      if (!during.granted) expect(during.reason).toBe('busy');
      else throttle.release(during.permitId);
      // … and the next one is served by the recreated limiter.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await throttle.acquire('after')).granted).toBe(true);
      expect(logged).toHaveBeenCalledWith(expect.stringMatching(/quota state vanished from Redis/));
    } finally {
      await throttle.close();
      logged.mockRestore();
    }
  });

  it('two processes carry on after Redis restarts empty: one recreates the state, the other registers again', async () => {
    const logged = jest.spyOn(log, 'error').mockImplementation(() => undefined);
    const cluster = { redisUrl: redis.url, limiterId: 'restarted' };
    const throttles = await Promise.all([
      Throttle.start(settings, cluster),
      Throttle.start(settings, cluster),
    ]);
    const clients = throttles.map(() => new Redis(redis.url, { maxRetriesPerRequest: 1 }));
    for (const client of clients) client.on('error', () => undefined);
    const limit = { perSecond: 1000, burst: 1000 };
    const budgets = clients.map(
      (client) =>
        new RpcBudget(
          { unitsPerSecond: 1000, weights: presetWeights('alchemy') },
          sharedSpendWindow(client, 'restarted-budget', limit),
          'the test endpoint',
        ),
    );
    try {
      await redis.restart();
      // Each asks again as an intent would (refused while it recovers), until served.
      for (const [index, throttle] of throttles.entries()) {
        let granted = false;
        for (let attempt = 0; attempt < 50 && !granted; attempt++) {
          const grant = await throttle.tryAcquire(`after-${index}-${attempt}`);
          if (grant.granted) throttle.release(grant.permitId);
          else await new Promise((resolve) => setTimeout(resolve, 100));
          granted = grant.granted;
        }
        expect(granted).toBe(true);
      }
      for (const budget of budgets) {
        let spent = false;
        for (let attempt = 0; attempt < 50 && !spent; attempt++) {
          spent = await budget.spend('eth_blockNumber').then(
            () => true,
            () => new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 100)),
          );
        }
        expect(spent).toBe(true);
      }
    } finally {
      await Promise.all([...throttles, ...budgets].map((part) => part.close()));
      for (const client of clients) client.disconnect();
    }
    // Closed, nothing of them beats on: neither the limiters the restart replaced nor the last.
    logged.mockClear();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(logged).not.toHaveBeenCalled();
    logged.mockRestore();
  });
});

describe('the spend window shared on Redis 7', () => {
  const clients: Redis[] = [];
  const client = () => {
    const created = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    clients.push(created);
    return created;
  };
  afterAll(() => clients.forEach((created) => created.disconnect()));

  /**
   * Takes `units` until granted, as the budget's line does; the grant came between the granted
   * ask and its answer.
   */
  async function spend(window: ReturnType<typeof sharedSpendWindow>, units: number) {
    for (;;) {
      const askedAt = performance.now();
      const waitMs = await window.take(units);
      if (waitMs === 0) return { askedAt, at: performance.now() };
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }

  it('two processes spend one window: never more than the limit in any second, and near all of it', async () => {
    const limit = { perSecond: 200, burst: 200 };
    const windows = [client(), client()].map((each) =>
      sharedSpendWindow(each, 'two-spenders', limit),
    );
    // A fresh window starts full (what was spent before it existed is unknown): a second passes.
    const spent: { askedAt: number; at: number; units: number }[] = [];
    const startedAt = performance.now();
    await Promise.all(
      windows.map(async (window) => {
        for (let call = 0; performance.now() - startedAt < 4000; call++) {
          const units = call % 2 === 0 ? 10 : 20;
          spent.push({ ...(await spend(window, units)), units });
        }
      }),
    );
    spent.sort((a, b) => a.at - b.at);
    // Each grant came between its ask and its answer (this process's clock; an answer read late
    // on a loaded machine moved a grant 10 units over): the spends certain to lie within one
    // second are those whose asks and answers all do, and they never pass the limit.
    for (let last = 0; last < spent.length; last++) {
      let sum = 0;
      let earliestAsk = Infinity;
      for (let each = last; each >= 0; each--) {
        earliestAsk = Math.min(earliestAsk, spent[each]!.askedAt);
        if (spent[last]!.at - earliestAsk >= 1000) break;
        sum += spent[each]!.units;
      }
      expect(sum).toBeLessThanOrEqual(limit.perSecond);
    }
    const steady = spent.filter((each) => each.at - startedAt >= 1500);
    const units = steady.reduce((sum, each) => sum + each.units, 0);
    const seconds = (steady[steady.length - 1]!.at - steady[0]!.at) / 1000;
    expect(units / seconds / limit.perSecond).toBeGreaterThan(0.85);
  });

  it("one process's read goes around another's send waiting for room, never delaying it", async () => {
    const limit = { perSecond: 300, burst: 300 };
    const [a, b] = [client(), client()].map((each) => sharedSpendWindow(each, 'packed', limit));
    await spend(a!, 100);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await a!.take(150)).toBe(0);
    // a's 280 waits for both to leave the window (the 150 at about 1,025 ms from now) and
    // reserves that time; b's send may not take it; of b's reads, 20 fits beside it then, 30 not.
    const reservedMs = await a!.take(280, 'a');
    expect(reservedMs).toBeGreaterThan(800);
    expect(await b!.take(280, 'b')).toBeGreaterThanOrEqual(reservedMs - 50);
    expect(await b!.take(30)).toBeGreaterThan(0);
    expect(await b!.take(20)).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, reservedMs));
    expect(await a!.take(280, 'a')).toBe(0);
  });

  it('a spend whose call left late is moved in Redis, for every process sharing the window', async () => {
    const limit = { perSecond: 300, burst: 300 };
    const [a, b] = [client(), client()].map((each) => sharedSpendWindow(each, 'moved', limit));
    for (let waitMs = await a!.take(250, undefined, 25, 'x'); waitMs > 0;) {
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      waitMs = await a!.take(250, undefined, 25, 'x');
    }
    // Left 2 s late: b's send waits for it to leave the window 3,025 ms after the answer (1,025
    // unmoved), however slow the round trips in between.
    await a!.leftLate('x', 250, 2000);
    expect(await b!.take(250)).toBeGreaterThan(2000);
  });

  it('a send that left late keeps the burst bound’s interval from when it left, in Redis', async () => {
    const limit = { perSecond: 20, burst: 2 };
    const [a, b] = [client(), client()].map((each) =>
      sharedSpendWindow(each, 'moved-burst', limit),
    );
    for (let waitMs = await a!.take(1, undefined, 25, 'y'); waitMs > 0;) {
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      waitMs = await a!.take(1, undefined, 25, 'y');
    }
    // One send in a second of twenty: only the burst bound holds b's send, 50 ms from when a's
    // left, 3 s after its answer, however slow the round trips in between.
    await a!.leftLate('y', 1, 3000);
    expect(await b!.take(1)).toBeGreaterThan(2000);
  });

  it('a refusal with the window full is remembered as the rate the provider refused, for every process', async () => {
    const limit = { perSecond: 100, burst: 100 };
    const [a, b] = [client(), client()];
    const [first, second] = [a!, b!].map((each) => sharedSpendWindow(each, 'learning', limit));
    await spend(first!, 1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    for (let call = 0; call < 90; call++) await spend(call % 2 ? first! : second!, 1);
    await second!.refused(1);
    const [ceiling, scale] = await a!.hmget('learning', 'ceiling', 'scale');
    expect(Number(ceiling)).toBeGreaterThan(0.85);
    expect(Number(ceiling)).toBeLessThan(0.95);
    expect(Number(scale)).toBeCloseTo(Number(ceiling) * 0.85, 2);
  });

  it("the window's margin is the largest any process measured", async () => {
    const limit = { perSecond: 100, burst: 100 };
    const [a, b] = [client(), client()];
    const [busy, quiet] = [a!, b!].map((each) => sharedSpendWindow(each, 'margins', limit));
    await busy!.take(1, undefined, 40);
    await quiet!.take(1, undefined, 25);
    expect(Number(await a!.hget('margins', 'margin'))).toBeGreaterThan(39);
  });

  it('a refusal met by one process slows every process; a Redis restart never lets one second be spent twice', async () => {
    const limit = { perSecond: 100, burst: 100 };
    const [a, b] = [client(), client()].map((each) => sharedSpendWindow(each, 'fleet', limit));
    await spend(a!, 1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    // Retry-After 300 ms, heard by a: b waits it out too.
    await a!.refused(1, 300);
    expect(await b!.take(1)).toBeGreaterThan(250);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await b!.take(1)).toBe(0);

    for (const each of clients) each.on('error', () => undefined);
    await redis.restart();
    await new Promise((resolve) => setTimeout(resolve, 200));
    // The state is gone: the window starts full, so nothing goes for a second.
    const waitMs = await b!.take(1).catch(async () => b!.take(1));
    expect(waitMs).toBeGreaterThan(900);
  });
});

describe('the permit line shared on Redis 7', () => {
  it('gives each intent one slot across processes, the same one when asked again elsewhere, and a cancelled slot to the next', async () => {
    const lineSettings = { ...settings, maxInFlight: 50, perSecond: 10, burst: 1 };
    const cluster = { redisUrl: redis.url, limiterId: 'line' };
    const [a, b] = await Promise.all([
      Throttle.start(lineSettings, cluster),
      Throttle.start(lineSettings, cluster),
    ]);
    try {
      // A slot is known only between the ask and the answer (a loaded machine may take tens of ms
      // to read one): each is a window, in ms after the first grant was asked for.
      const startedAt = Date.now();
      expect(await a.tryAcquire('i0/1', 'i0')).toMatchObject({ granted: true });
      const firstGrant = { from: 0, to: Date.now() - startedAt };
      const slotOf = async (throttle: Throttle, intent: string, attempt = 1) => {
        const asked = Date.now() - startedAt;
        const answer = await throttle.tryAcquire(`${intent}/${attempt}`, intent);
        if (answer.granted) throw new Error(`${intent} was granted with the line full`);
        expect(answer.reason).toBe('reserved');
        return {
          from: asked + answer.retryAfterMs,
          to: Date.now() - startedAt + answer.retryAfterMs,
        };
      };
      // Redis's clock against ours: a few ms either way.
      const overlaps = (x: { from: number; to: number }, y: { from: number; to: number }) =>
        x.from - 15 <= y.to && y.from - 15 <= x.to;
      const slots = [await slotOf(a, 'i1'), await slotOf(b, 'i2'), await slotOf(a, 'i3')];
      // One interval apart whichever process asked (10/s with a burst of 1: sends 125 ms apart,
      // each gap keeping 25 ms for jitter, the line at 0.9 of that).
      const lineMs = 125 / 0.9;
      slots.forEach((slot, i) => {
        const due = {
          from: firstGrant.from + lineMs * (i + 1),
          to: firstGrant.to + lineMs * (i + 1),
        };
        expect({ i, fits: overlaps(slot, due) }).toEqual({ i, fits: true });
      });
      // i2's try re-runs on the other process (a crash, a moved workflow): the same slot.
      expect(overlaps(await slotOf(a, 'i2', 2), slots[1]!)).toBe(true);
      // i1 is cancelled: the next intent to ask takes its slot, not the back of the line.
      await b.cancelSlot('i1');
      expect(overlaps(await slotOf(b, 'i4'), slots[0]!)).toBe(true);
      await new Promise((resolve) =>
        setTimeout(resolve, 2 * lineMs + 20 - (Date.now() - startedAt)),
      );
      expect(await b.tryAcquire('i2/3', 'i2')).toMatchObject({ granted: true });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('orders slots by priority and weighted shares as the line in process does', async () => {
    // One slot a second on Redis's clock: slot n is n seconds ahead, whatever the few ms between.
    const client = new Redis(redis.url);
    const lines = [0, 1].map(() =>
      sharedPermitLine(client, 'ordered-line', { perSecond: 1, burst: 1 }),
    );
    const [a, b] = [lines[0]!, lines[1]!];
    const startedAt = Date.now();
    const slotOf = async (line: PermitLine, key: string, place?: LinePlace) =>
      Math.round(((await line.reserve(key, place)) + Date.now() - startedAt) / 1000);
    const bulk: LinePlace = { rank: 5, tenant: 'acme', weight: 1 };
    try {
      const acme = [];
      for (let i = 0; i < 5; i++) acme.push(await slotOf(a, `a${i}`, bulk));
      expect(acme).toEqual([0, 1, 2, 3, 4]);
      // An urgent newcomer takes the earliest slot not due; its holder takes the newcomer's.
      expect(await slotOf(b, 'u1', { rank: 1, tenant: 'globex', weight: 1 })).toBe(1);
      expect(await slotOf(a, 'a1')).toBe(5);
      // Moved once, never again: the next urgent one takes a2's.
      expect(await slotOf(b, 'u2', { rank: 1, tenant: 'globex', weight: 1 })).toBe(2);
      expect(await slotOf(b, 'a1')).toBe(5);
      // Of bulk too, a tenant holding none goes before acme (holding 4 ahead) at weight 0.5,
      // taking acme's earliest unmoved slot; at that weight its share is reached at 2 slots.
      const initech: LinePlace = { rank: 5, tenant: 'initech', weight: 0.5 };
      expect(await slotOf(b, 'i0', initech)).toBe(3);
      expect(await slotOf(a, 'i1', initech)).toBe(4);
      expect(await slotOf(b, 'i2', initech)).toBe(9);
      // A taken slot leaves its tenant's count: acme's share shrinks with it.
      await a.taken('a0');
      expect(await client.hget('ordered-line:held', 'acme')).toBe('4');
    } finally {
      client.disconnect();
    }
  });

  it('starts its tenants’ counts again once it drains: counts an older build left behind go', async () => {
    const client = new Redis(redis.url);
    const line = sharedPermitLine(client, 'drained-line', { perSecond: 1, burst: 1 });
    try {
      // A process of an older build took a slot without its count: acme's stays one too high.
      await client.hset('drained-line:held', 'acme', '1');
      await client.hset('drained-line:places', 'gone', '5|1|0|acme');
      await line.reserve('g0', { rank: 3, tenant: 'globex', weight: 1 });
      expect(await client.hgetall('drained-line:held')).toEqual({ globex: '1' });
      expect(await client.hkeys('drained-line:places')).toEqual(['g0']);
    } finally {
      client.disconnect();
    }
  });
});
