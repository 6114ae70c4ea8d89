import { randomBytes } from 'node:crypto';

const crockford = '0123456789abcdefghjkmnpqrstvwxyz';

/** What each kind of record's id starts with. */
export const IdPrefix = { intent: 'pi', batch: 'pb', schedule: 'ps', pause: 'pz' } as const;
export type IdPrefix = (typeof IdPrefix)[keyof typeof IdPrefix];

export const intentIdPattern = /^pi_[0-9a-hjkmnp-tv-z]{26}$/;

/**
 * `<prefix>_` + 48-bit millisecond time + 80 random bits, in Crockford base32, so that ids sort
 * by creation time in the database and in the Temporal Web UI.
 */
export function newId(prefix: IdPrefix, now: number = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = crockford[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const random = [...randomBytes(16)].map((byte) => crockford[byte % 32]).join('');
  return `${prefix}_${time}${random}`;
}

/** A new intent's id: `pi_…`. */
export const newIntentId = (now: number = Date.now()): string => newId(IdPrefix.intent, now);
