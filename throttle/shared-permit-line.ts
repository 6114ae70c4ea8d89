import type Redis from 'ioredis';
import { staleSlotMs, type LineRate, type PermitLine } from './permit-line';

/**
 * permit-line.ts's line in Lua on Redis's clock, shared by every process on the quota. Keys:
 * `<key>` (a hash: the tail), `<key>:reserved` (slots by intent), `<key>:freed` (cancelled slots
 * still ahead). When the state is lost — a Redis restart or flush — the line starts again from
 * now: intents whose slots were lost book again at its tail when they come back, so no slot is
 * given twice, and sends granted on either side of the restart still pass the send window, which
 * starts full (shared-spend-window.ts): no second is spent twice at the node.
 */
const reserveScript = `
local t = redis.call('TIME')
local now = t[1] * 1000 + t[2] / 1000
local own = redis.call('ZSCORE', KEYS[2], ARGV[1])
if own then return math.max(0, math.ceil(tonumber(own) - now)) end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[4]))
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
local slot
local freed = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
if #freed > 0 then
  slot = tonumber(freed[2])
  redis.call('ZREM', KEYS[3], freed[1])
else
  local interval = tonumber(ARGV[2])
  local tat = tonumber(redis.call('HGET', KEYS[1], 'tat') or '0')
  local tail = math.max(tat, now)
  slot = math.max(now, tail - tonumber(ARGV[3]))
  redis.call('HSET', KEYS[1], 'tat', tostring(tail + interval))
end
redis.call('ZADD', KEYS[2], slot, ARGV[1])
return math.max(0, math.ceil(slot - now))
`;

const cancelScript = `
local t = redis.call('TIME')
local now = t[1] * 1000 + t[2] / 1000
local slot = redis.call('ZSCORE', KEYS[2], ARGV[1])
if not slot then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
if tonumber(slot) > now then redis.call('ZADD', KEYS[3], slot, ARGV[1] .. '@' .. slot) end
return 1
`;

type LineRedis = Redis & {
  reserveInLine(...args: (string | number)[]): Promise<number>;
  cancelInLine(...args: (string | number)[]): Promise<number>;
};

export function sharedPermitLine(redis: Redis, key: string, rate: LineRate): PermitLine {
  const client = redis as LineRedis;
  if (typeof client.reserveInLine !== 'function') {
    redis.defineCommand('reserveInLine', { numberOfKeys: 3, lua: reserveScript });
    redis.defineCommand('cancelInLine', { numberOfKeys: 3, lua: cancelScript });
  }
  const keys = [key, `${key}:reserved`, `${key}:freed`];
  const interval = 1000 / rate.perSecond;
  return {
    reserve: (intent) =>
      client.reserveInLine(...keys, intent, interval, (rate.burst - 1) * interval, staleSlotMs),
    taken: async (intent) => {
      await redis.zrem(keys[1]!, intent);
    },
    cancel: async (intent) => {
      await client.cancelInLine(...keys, intent);
    },
  };
}
