import { randomBytes } from 'node:crypto';

const crockford = '0123456789abcdefghjkmnpqrstvwxyz';

export const intentIdPattern = /^pi_[0-9a-hjkmnp-tv-z]{26}$/;

/**
 * `pi_` + 48-bit millisecond time + 80 random bits, in Crockford base32, so that ids sort by
 * creation time in the database and in the Temporal Web UI.
 */
export function newIntentId(now: number = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = crockford[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const random = [...randomBytes(16)].map((byte) => crockford[byte % 32]).join('');
  return `pi_${time}${random}`;
}
