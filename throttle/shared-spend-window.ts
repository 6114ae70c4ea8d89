import type Redis from 'ioredis';
import {
  climbPerSecond,
  cutFactor,
  cutSpacingMs,
  deliveryJitterMs,
  minScale,
  type ProviderLimit,
  type SpendWindow,
} from './spend-window';

/**
 * spend-window.ts's decideSpend and recordRefusal, in Lua on Redis's clock, so every process
 * spends from one window and learns from every refusal. Hand-written because no maintained
 * library offers a shared, non-blocking check that says how long to wait under both a sliding
 * window and a burst (Bottleneck only queues, its reservoir is a token bucket that a rolling
 * second catches out; fixed-window limiters allow twice the rate at a window's edge; approximate
 * sliding windows assume the previous window was spent evenly).
 *
 * State: a hash (`<key>`) and the window's spends in a sorted set (`<key>:spends`, scored by
 * time, members "seq:units"). When the hash is missing — the first call ever, a Redis restart or
 * flush — what was spent in the last second is unknown: the window starts full (one second's
 * units spent now) and the bucket empty, so a restart never lets one second be spent twice.
 */
const common = `
local t = redis.call('TIME')
local now = t[1] * 1000 + t[2] / 1000
local units = tonumber(ARGV[1])
local perSecond = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local jitter = tonumber(ARGV[4])
local climb = tonumber(ARGV[5])
local windowMs = 1000 + jitter
local s = redis.call('HMGET', KEYS[1], 'total', 'tat', 'scale', 'scaledAt', 'lastCutAt', 'pausedUntil', 'seq')
local total, tat, scale, scaledAt, lastCutAt, pausedUntil, seq
if not s[1] then
  redis.call('DEL', KEYS[2])
  total = perSecond
  tat = now + burst * 1000 / perSecond
  scale, scaledAt, lastCutAt, pausedUntil, seq = 1, now, -1e15, 0, 1
  redis.call('ZADD', KEYS[2], now, '0:' .. perSecond)
else
  total, tat, scale, scaledAt = tonumber(s[1]), tonumber(s[2]), tonumber(s[3]), tonumber(s[4])
  lastCutAt, pausedUntil, seq = tonumber(s[5]), tonumber(s[6]), tonumber(s[7])
end
if scale < 1 and now > scaledAt then scale = math.min(1, scale + climb * (now - scaledAt) / 1000) end
scaledAt = math.max(scaledAt, now)
local function scaled()
  local q = perSecond * scale
  local b = math.min(burst * scale, q) - math.max(1, q * jitter / 1000)
  if b >= units then return q, b, 1000 / q end
  return q, units, 1000 / q + jitter / units
end
local function save()
  redis.call('HSET', KEYS[1], 'total', total, 'tat', tat, 'scale', scale, 'scaledAt', scaledAt,
    'lastCutAt', lastCutAt, 'pausedUntil', pausedUntil, 'seq', seq)
end
`;

const takeScript = `${common}
if pausedUntil > now then save() return math.ceil(pausedUntil - now) end
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now - windowMs)
for _, member in ipairs(expired) do total = total - tonumber(string.match(member, ':(.+)$')) end
if #expired > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - windowMs) end
local q, b, unitMs = scaled()
local windowWait = 0
if total > 0 and total + units > q then
  local remaining = total
  local spends = redis.call('ZRANGE', KEYS[2], 0, -1, 'WITHSCORES')
  for i = 1, #spends, 2 do
    remaining = remaining - tonumber(string.match(spends[i], ':(.+)$'))
    if remaining <= 0 or remaining + units <= q then
      windowWait = tonumber(spends[i + 1]) + windowMs - now
      break
    end
  end
end
local nextTat = math.max(tat, now) + units * unitMs
local wait = math.max(windowWait, nextTat - b * unitMs - now)
if wait > 0 then save() return math.ceil(wait) end
tat = nextTat
redis.call('ZADD', KEYS[2], now, seq .. ':' .. units)
seq = seq + 1
total = total + units
save()
return 0
`;

const refusedScript = `${common}
local retryAfter = tonumber(ARGV[6])
if now - lastCutAt >= tonumber(ARGV[7]) then
  scale = math.max(tonumber(ARGV[9]), scale * tonumber(ARGV[8]))
  lastCutAt = now
end
local q, b, unitMs = scaled()
tat = math.max(tat, now + b * unitMs)
if retryAfter >= 0 then pausedUntil = math.max(pausedUntil, now + retryAfter) end
save()
return 0
`;

type WindowRedis = Redis & {
  takeFromWindow(...args: (string | number)[]): Promise<number>;
  refusedByProvider(...args: (string | number)[]): Promise<number>;
};

/** One window in Redis under `key`, shared by every process that names it. */
export function sharedSpendWindow(redis: Redis, key: string, limit: ProviderLimit): SpendWindow {
  const client = redis as WindowRedis;
  if (typeof client.takeFromWindow !== 'function') {
    redis.defineCommand('takeFromWindow', { numberOfKeys: 2, lua: takeScript });
    redis.defineCommand('refusedByProvider', { numberOfKeys: 2, lua: refusedScript });
  }
  const keys = [key, `${key}:spends`];
  const args = (units: number) => [
    units,
    limit.perSecond,
    limit.burst,
    deliveryJitterMs,
    climbPerSecond,
  ];
  return {
    take: (units) => client.takeFromWindow(...keys, ...args(units)),
    refused: async (units, retryAfterMs) => {
      await client.refusedByProvider(
        ...keys,
        ...args(units),
        retryAfterMs ?? -1,
        cutSpacingMs,
        cutFactor,
        minScale,
      );
    },
  };
}
