import Redis from 'ioredis';

/** Where a Redis is: its URL, and for a rediss:// server signed by a private CA that CA (PEM). */
export interface RedisTarget {
  url: string;
  ca?: string;
}

/**
 * A client of the shared quota's Redis. Over rediss:// the server's certificate is checked
 * (against `ca` when given, else the system's CAs) and its name against the URL's host.
 */
export const redisClient = ({ url, ca }: RedisTarget): Redis =>
  new Redis(url, { maxRetriesPerRequest: 1, ...(ca && { tls: { ca } }) });
