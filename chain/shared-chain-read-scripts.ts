import type Redis from 'ioredis';

// The Lua scripts the fleet's shared chain reads run in Redis (chain/shared-chain-reads.ts), each
// one atomic step of the reader lease or of a value read once.

/**
 * One turn at the head for the fleet, on Redis's clock. A head published late enough is taken
 * as it is. Otherwise the lease decides who reads it: the process holding it while its read runs
 * (it took the lease after the last publication), any asker once the holder is not reading (the
 * lease moves to it) or its lease lapsed (it died reading). The others wait for the publication.
 * KEYS: lease, head. ARGV: me, lease ms, fresh within ms, not before (0: now − fresh).
 * Returns {'head', block, readAt} | {'wait', notBefore} | {'read', previous holder or ''}.
 */
export const headTurnScript = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local notBefore = tonumber(ARGV[4])
if notBefore == 0 then notBefore = now - tonumber(ARGV[3]) end
local head = redis.call('HMGET', KEYS[2], 'at', 'readAt', 'block')
local at = tonumber(head[1] or '-1')
if head[3] and at >= notBefore then return {'head', head[3], head[2]} end
local lease = redis.call('HMGET', KEYS[1], 'holder', 'since')
local holder = lease[1]
if holder and holder ~= ARGV[1] and tonumber(lease[2]) > at then
  return {'wait', tostring(notBefore)}
end
redis.call('HSET', KEYS[1], 'holder', ARGV[1], 'since', now)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {'read', holder or ''}
`;

/**
 * The head as the reader read it, published while it holds the lease (a reader replaced
 * meanwhile only stores the block: the head is its successor's to publish).
 * KEYS: lease, head, block by hash. ARGV: me, block, readAt, keep seconds.
 */
export const publishHeadScript = `
redis.call('SET', KEYS[3], ARGV[2], 'EX', ARGV[4])
if redis.call('HGET', KEYS[1], 'holder') ~= ARGV[1] then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[2], 'at', now, 'readAt', ARGV[3], 'block', ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return 1
`;

/**
 * A value read once for the fleet: {1, value} when published; {2} when this asker claimed the
 * read; {0} while another's claim runs. KEYS: value, claim. ARGV: me, claim ms.
 */
export const takeOrClaimScript = `
local value = redis.call('GET', KEYS[1])
if value then return {1, value} end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return {2} end
return {0}
`;

/** KEYS: lease. ARGV: me. */
export const releaseScript = `
if redis.call('HGET', KEYS[1], 'holder') == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

export type SharingRedis = Redis & {
  chainHeadTurn(lease: string, head: string, ...argv: (string | number)[]): Promise<string[]>;
  chainPublishHead(
    lease: string,
    head: string,
    block: string,
    ...argv: (string | number)[]
  ): Promise<number>;
  chainTakeOrClaim(value: string, claim: string, me: string, claimMs: number): Promise<unknown[]>;
  chainRelease(lease: string, me: string): Promise<number>;
};
