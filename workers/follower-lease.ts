import type Redis from 'ioredis';

/** KEYS: lease. ARGV: me, lease ms. Takes a free lease or renews our own; 1 when ours. */
const holdScript = `
local holder = redis.call('GET', KEYS[1])
if holder == false or holder == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
`;

/** KEYS: lease. ARGV: me. */
const releaseScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

type LeaseRedis = Redis & {
  followerHold(lease: string, me: string, leaseMs: number): Promise<number>;
  followerRelease(lease: string, me: string): Promise<number>;
};

export interface FollowerLease {
  /** Whether this process follows `chainId`'s blocks now: takes or renews the chain's lease. */
  holds(chainId: number): Promise<boolean>;
  /** Gives every lease this process holds back (a drain): another follows at its next tick. */
  release(): Promise<void>;
}

/**
 * One follower per chain for the fleet sharing `redis`: a lease each process renews while it
 * follows; a dead follower's lease lapses after `leaseMs` and the next asker takes it. Redis
 * failing makes this process follow on its own (a second follower only signals twice).
 */
export function followerLease(redis: Redis, processId: string, leaseMs: number): FollowerLease {
  const client = redis as LeaseRedis;
  client.defineCommand('followerHold', { numberOfKeys: 1, lua: holdScript });
  client.defineCommand('followerRelease', { numberOfKeys: 1, lua: releaseScript });
  const key = (chainId: number) => `block-follower:${chainId}`;
  const held = new Set<number>();
  return {
    async holds(chainId) {
      const ours = await client
        .followerHold(key(chainId), processId, leaseMs)
        .then((answer) => answer === 1)
        .catch(() => true);
      if (ours) held.add(chainId);
      else held.delete(chainId);
      return ours;
    },
    async release() {
      await Promise.all(
        [...held].map((chainId) => client.followerRelease(key(chainId), processId).catch(() => 0)),
      );
      held.clear();
    },
  };
}

/** Without Redis every process follows for itself. */
export const followAlone: FollowerLease = {
  holds: () => Promise.resolve(true),
  release: () => Promise.resolve(),
};
