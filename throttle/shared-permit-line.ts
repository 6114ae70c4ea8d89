import type Redis from 'ioredis';
import { displaceScan, unplaced } from './line-places';
import { slotDueMs, staleSlotMs, type LineRate, type PermitLine } from './permit-line';

/**
 * permit-line.ts's line in Lua on Redis's clock, shared by every process on the quota. Keys:
 * `<key>` (a hash: the tail), `<key>:reserved` (slots by intent), `<key>:freed` (cancelled slots
 * still ahead), `<key>:places` (intent → "rank|weight|moved|tenant"), `<key>:held` (slots by
 * tenant; an empty line starts them again, so counts left behind by a process of an older build,
 * which takes slots without them, go when the line next drains). When the state is lost — a Redis
 * restart or flush — the line starts again from now: intents whose slots were lost book again at
 * its tail when they come back, so no slot is given twice, and sends granted on either side of
 * the restart still pass the send window, which starts full (shared-spend-window.ts): no second
 * is spent twice at the node.
 */
const leaveFunction = `
local function leave(member)
  local place = redis.call('HGET', KEYS[4], member)
  redis.call('ZREM', KEYS[2], member)
  redis.call('HDEL', KEYS[4], member)
  if place then
    local tenant = string.match(place, '^[^|]*|[^|]*|[^|]*|(.*)$')
    if redis.call('HINCRBY', KEYS[5], tenant, -1) <= 0 then redis.call('HDEL', KEYS[5], tenant) end
  end
end
`;

const reserveScript = `${leaveFunction}
local t = redis.call('TIME')
local now = t[1] * 1000 + t[2] / 1000
local own = redis.call('ZSCORE', KEYS[2], ARGV[1])
if own then return math.max(0, math.ceil(tonumber(own) - now)) end
for _, stale in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[4]))) do
  leave(stale)
end
if redis.call('ZCARD', KEYS[2]) == 0 then redis.call('DEL', KEYS[4], KEYS[5]) end
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
local rank, weight, tenant = tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7]
local function held(of) return tonumber(redis.call('HGET', KEYS[5], of) or '0') end
local ahead = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. (now + tonumber(ARGV[8])), '(' .. slot,
  'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[9]))
for i = 1, #ahead, 2 do
  local place = redis.call('HGET', KEYS[4], ahead[i])
  if place then
    local r, w, moved, other = string.match(place, '^([^|]*)|([^|]*)|([^|]*)|(.*)$')
    r, w = tonumber(r), tonumber(w)
    local before = false
    if moved == '0' then
      if rank ~= r then before = rank < r
      elseif tenant ~= other then before = held(other) / w > (held(tenant) + 1) / weight end
    end
    if before then
      redis.call('ZADD', KEYS[2], slot, ahead[i])
      redis.call('HSET', KEYS[4], ahead[i], r .. '|' .. w .. '|1|' .. other)
      slot = tonumber(ahead[i + 1])
      break
    end
  end
end
redis.call('ZADD', KEYS[2], slot, ARGV[1])
redis.call('HSET', KEYS[4], ARGV[1], rank .. '|' .. weight .. '|0|' .. tenant)
redis.call('HINCRBY', KEYS[5], tenant, 1)
return math.max(0, math.ceil(slot - now))
`;

const takenScript = `${leaveFunction}
leave(ARGV[1])
return 1
`;

const cancelScript = `${leaveFunction}
local t = redis.call('TIME')
local now = t[1] * 1000 + t[2] / 1000
local slot = redis.call('ZSCORE', KEYS[2], ARGV[1])
if not slot then return 0 end
leave(ARGV[1])
if tonumber(slot) > now then redis.call('ZADD', KEYS[3], slot, ARGV[1] .. '@' .. slot) end
return 1
`;

type LineRedis = Redis & {
  reserveInLine(...args: (string | number)[]): Promise<number>;
  takenInLine(...args: (string | number)[]): Promise<number>;
  cancelInLine(...args: (string | number)[]): Promise<number>;
};

export function sharedPermitLine(redis: Redis, key: string, rate: LineRate): PermitLine {
  const client = redis as LineRedis;
  if (typeof client.reserveInLine !== 'function') {
    redis.defineCommand('reserveInLine', { numberOfKeys: 5, lua: reserveScript });
    redis.defineCommand('takenInLine', { numberOfKeys: 5, lua: takenScript });
    redis.defineCommand('cancelInLine', { numberOfKeys: 5, lua: cancelScript });
  }
  const keys = [key, `${key}:reserved`, `${key}:freed`, `${key}:places`, `${key}:held`];
  const interval = 1000 / rate.perSecond;
  return {
    reserve: (intent, place = unplaced) =>
      client.reserveInLine(
        ...keys,
        intent,
        interval,
        (rate.burst - 1) * interval,
        staleSlotMs,
        place.rank,
        place.weight,
        place.tenant,
        slotDueMs,
        displaceScan,
      ),
    taken: async (intent) => {
      await client.takenInLine(...keys, intent);
    },
    cancel: async (intent) => {
      await client.cancelInLine(...keys, intent);
    },
  };
}
