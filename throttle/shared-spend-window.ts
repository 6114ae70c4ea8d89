import type Redis from 'ioredis';
import {
  climbPerSecond,
  cutFactor,
  cutSpacingMs,
  minScale,
  probeDoublingMs,
  probePerSecond,
  settleShare,
  trustedStreak,
  trustedUse,
} from './refusal-learning';
import type { SpendWindow } from './spend-window';
import {
  deliveryJitterMs,
  marginFadePerSecond,
  maxMarginMs,
  minMarginMs,
  staleReservationMs,
  type ProviderLimit,
} from './window-state';

/**
 * spend-window.ts's decideSpend and refusal-learning.ts's recordRefusal, in Lua on Redis's
 * clock, so every process spends from one window, learns from every refusal and packs around one
 * reservation (their constants written into the scripts). Hand-written because no maintained
 * library offers a shared, non-blocking check that says how long to wait under both a sliding
 * window and a burst (Bottleneck only queues, its reservoir is a token bucket that a rolling
 * second catches out; fixed-window limiters allow twice the rate at a window's edge; approximate
 * sliding windows assume the previous window was spent evenly).
 *
 * State: a hash (`<key>`, with the reservation's owner, units and time) and the window's spends
 * in a sorted set (`<key>:spends`, scored by time, members "id:units": the caller's id, else a
 * sequence number). When the hash is missing — the first call ever, a Redis restart or flush —
 * what was spent in the last second is unknown: the window starts full (one second's units spent
 * now) and the bucket empty, so a restart never lets one second be spent twice.
 */
const common = `
local t = redis.call('TIME')
local now = t[1] * 1000 + t[2] / 1000
local units = tonumber(ARGV[1])
local perSecond = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local s = redis.call('HMGET', KEYS[1], 'seq', 'tat', 'scale', 'scaledAt', 'lastCutAt',
  'pausedUntil', 'streakRefusals', 'rOwner', 'rUnits', 'rAt', 'ceiling', 'refusedUnits',
  'streakAt', 'margin', 'marginAt')
local jitter = math.min(${maxMarginMs}, math.max(${minMarginMs}, tonumber(ARGV[4])))
if s[14] then
  local faded = tonumber(s[14]) - (now - tonumber(s[15])) * ${marginFadePerSecond} / 1000
  jitter = math.max(jitter, math.min(tonumber(s[14]), faded))
end
local windowMs = 1000 + jitter
local tat, scale, scaledAt, lastCutAt, pausedUntil, seq
local rOwner, rUnits, rAt = nil, 0, 0
local ceiling, refusedUnits, streakAt, streakRefusals = 1, 0, -1e15, 0
if not s[1] then
  redis.call('DEL', KEYS[2])
  tat = now + burst * 1000 / perSecond
  scale, scaledAt, lastCutAt, pausedUntil, seq = 1, now, -1e15, 0, 1
  redis.call('ZADD', KEYS[2], now, '0:' .. perSecond)
else
  seq, tat, scale, scaledAt = tonumber(s[1]), tonumber(s[2]), tonumber(s[3]), tonumber(s[4])
  lastCutAt, pausedUntil = tonumber(s[5]), tonumber(s[6])
  if s[8] then rOwner, rUnits, rAt = s[8], tonumber(s[9]), tonumber(s[10]) end
  if s[11] then
    ceiling, refusedUnits, streakAt = tonumber(s[11]), tonumber(s[12]), tonumber(s[13])
  end
  if s[7] then streakRefusals = tonumber(s[7]) end
end
if scale < 1 and now > scaledAt then
  local seconds = (now - scaledAt) / 1000
  local settled = ceiling * ${settleShare}
  if scale < settled then
    scale = math.min(settled, scale + ${climbPerSecond} * seconds)
  else
    local quickening = 2 ^ ((now - lastCutAt) / ${probeDoublingMs})
    scale = math.min(1, scale + ${probePerSecond} * quickening * seconds)
    ceiling = math.max(ceiling, scale)
  end
end
scaledAt = math.max(scaledAt, now)
local function scaled(u)
  local q = perSecond * scale
  local b = math.min(burst * scale, q) - math.max(1, q * jitter / 1000)
  if b >= u then return q, b, 1000 / q end
  return q, u, 1000 / q + jitter / u
end
local function save()
  redis.call('HSET', KEYS[1], 'tat', tat, 'scale', scale, 'scaledAt', scaledAt,
    'lastCutAt', lastCutAt, 'pausedUntil', pausedUntil, 'seq', seq, 'ceiling', ceiling,
    'refusedUnits', refusedUnits, 'streakAt', streakAt, 'margin', jitter, 'marginAt', now,
    'streakRefusals', streakRefusals)
  if rOwner then
    redis.call('HSET', KEYS[1], 'rOwner', rOwner, 'rUnits', rUnits, 'rAt', rAt)
  else
    redis.call('HDEL', KEYS[1], 'rOwner', 'rUnits', 'rAt')
  end
end
`;

const takeScript = `${common}
local owner = ARGV[5]
if pausedUntil > now then save() return math.ceil(pausedUntil - now) end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - windowMs)
local spends = {}
local raw = redis.call('ZRANGE', KEYS[2], 0, -1, 'WITHSCORES')
for i = 1, #raw, 2 do
  spends[#spends + 1] = { tonumber(raw[i + 1]), tonumber(string.match(raw[i], ':(.+)$')) }
end
local function waitAt(list, tatAt, at, u)
  local q, b, unitMs = scaled(u)
  local inWindow = 0
  for _, spend in ipairs(list) do
    if spend[1] > at - windowMs then inWindow = inWindow + spend[2] end
  end
  local windowWait = 0
  if inWindow > 0 and inWindow + u > q then
    local remaining = inWindow
    for _, spend in ipairs(list) do
      if spend[1] > at - windowMs then
        remaining = remaining - spend[2]
        if remaining <= 0 or remaining + u <= q then
          windowWait = spend[1] + windowMs - at
          break
        end
      end
    end
  end
  local nextTat = math.max(tatAt, at) + u * unitMs
  return math.max(0, windowWait, nextTat - b * unitMs - at)
end
if rOwner and rAt < now - ${staleReservationMs} then rOwner = nil end
local own = owner ~= '' and (not rOwner or rOwner == owner or units > rUnits)
local reserved = rOwner and not own
local wait = waitAt(spends, tat, now, units)
local _, _, unitMs = scaled(units)
local blocked = false
if wait == 0 and reserved then
  local at = math.max(now, rAt)
  local after = {}
  for _, spend in ipairs(spends) do after[#after + 1] = spend end
  after[#after + 1] = { now, units }
  local afterTat = math.max(tat, now) + units * unitMs
  blocked = waitAt(after, afterTat, at, rUnits) > waitAt(spends, tat, at, rUnits)
end
if wait == 0 and not blocked then
  tat = math.max(tat, now) + units * unitMs
  local id = ARGV[6]
  if id == '' then id = seq end
  redis.call('ZADD', KEYS[2], now, id .. ':' .. units)
  seq = seq + 1
  if own then rOwner = nil end
  save()
  return 0
end
if not reserved then
  if owner ~= '' then rOwner, rUnits, rAt = owner, units, now + wait end
  save()
  return math.ceil(wait)
end
local nextExpiry = 1e15
if #spends > 0 then nextExpiry = spends[1][1] + windowMs - now end
save()
return math.max(1, math.ceil(math.max(wait, math.min(nextExpiry, rAt - now))))
`;

const refusedScript = `${common}
local retryAfter = tonumber(ARGV[5])
local streakBegins = now - streakAt >= windowMs
if streakBegins then refusedUnits, streakAt, streakRefusals = 0, now, 0 end
streakRefusals = streakRefusals + 1
local counted = -refusedUnits
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. (now - windowMs), '+inf')) do
  counted = counted + tonumber(string.match(member, ':(.+)$'))
end
refusedUnits = refusedUnits + units
local used = counted / perSecond
local before = ceiling
if streakBegins then before = scale end
local repeated = streakRefusals >= ${trustedStreak} and used >= before / 2
if used >= before * ${trustedUse} or repeated then
  ceiling = math.min(before, used)
end
if now - lastCutAt >= ${cutSpacingMs} then
  scale = math.max(${minScale}, math.min(scale, ceiling) * ${cutFactor})
  lastCutAt = now
else
  scale = math.max(${minScale}, math.min(scale, ceiling * ${cutFactor}))
end
local _, b, unitMs = scaled(units)
tat = math.max(tat, now + b * unitMs)
if retryAfter >= 0 then pausedUntil = math.max(pausedUntil, now + retryAfter) end
save()
return 0
`;

/** window-state.ts's moveSpend: a spend whose call left late counts from when it left. */
const leftLateScript = `${common}
local member = ARGV[5] .. ':' .. units
local at = redis.call('ZSCORE', KEYS[2], member)
if at then
  local movedAt = tonumber(at) + tonumber(ARGV[6])
  redis.call('ZADD', KEYS[2], movedAt, member)
  local _, _, unitMs = scaled(units)
  tat = math.max(tat, movedAt + units * unitMs)
  save()
end
return 0
`;

type WindowRedis = Redis & {
  spendLeftLate(...args: (string | number)[]): Promise<number>;
  takeFromWindow(...args: (string | number)[]): Promise<number>;
  refusedByProvider(...args: (string | number)[]): Promise<number>;
};

/** One window in Redis under `key`, shared by every process that names it. */
export function sharedSpendWindow(redis: Redis, key: string, limit: ProviderLimit): SpendWindow {
  const client = redis as WindowRedis;
  if (typeof client.takeFromWindow !== 'function') {
    redis.defineCommand('takeFromWindow', { numberOfKeys: 2, lua: takeScript });
    redis.defineCommand('refusedByProvider', { numberOfKeys: 2, lua: refusedScript });
    redis.defineCommand('spendLeftLate', { numberOfKeys: 2, lua: leftLateScript });
  }
  const keys = [key, `${key}:spends`];
  /** The last margin this process measured, sent with its refusals too. */
  let lastMarginMs = deliveryJitterMs;
  const args = (units: number) => [units, limit.perSecond, limit.burst, lastMarginMs];
  return {
    take: (units, owner, marginMs = lastMarginMs, id) => {
      lastMarginMs = marginMs;
      return client.takeFromWindow(...keys, ...args(units), owner ?? '', id ?? '');
    },
    leftLate: async (id, units, lateMs) => {
      await client.spendLeftLate(...keys, ...args(units), id, lateMs);
    },
    refused: async (units, retryAfterMs) => {
      await client.refusedByProvider(...keys, ...args(units), retryAfterMs ?? -1);
    },
  };
}
