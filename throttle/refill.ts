import type Bottleneck from 'bottleneck';

/** A token bucket: `perSecond` tokens a second, up to `burst`. */
export interface Rate {
  perSecond: number;
  burst: number;
}

/**
 * Bottleneck grows its reservoir only on its heartbeat (250 ms by default, 5 s clustered: "5 per
 * second" became 5 per 5 s), so the beat is half a token's time, between 10 and 250 ms, and each
 * beat adds the rate's share. In process, Bottleneck adds one increment per beat however long the
 * beat was, and only if a full increase interval has passed by Date.now() (20/s came out as 4/s,
 * and a beat 1 ms short of the interval was skipped): there the interval is set a little under
 * the beat. Clustered, it adds one increment per whole interval elapsed: there they are equal.
 */
export const beatMs = ({ perSecond }: Rate): number =>
  Math.min(250, Math.max(10, Math.floor(500 / perSecond)));

/** The reservoir settings of a bucket (the current reservoir is state, not a setting). */
export const refillOf = (
  rate: Rate,
  clustered: boolean,
): Bottleneck.ConstructorOptions & { heartbeatInterval: number } => ({
  reservoirIncreaseInterval: clustered ? beatMs(rate) : beatMs(rate) - 2,
  reservoirIncreaseAmount: (rate.perSecond * beatMs(rate)) / 1000,
  reservoirIncreaseMaximum: rate.burst,
  // The option is real but missing from Bottleneck's types.
  heartbeatInterval: beatMs(rate),
});

/**
 * Bottleneck recreates its Redis state when it finds it gone (Redis restarted, keys flushed) by
 * comparing the error text to "SETTINGS_KEY_NOT_FOUND", and registers itself again on
 * "UNKNOWN_CLIENT" (the state was recreated by another process after a restart); Redis 7
 * prefixes script errors with "ERR ", so neither ever matches and every later job fails: the
 * owner recreates the limiter.
 */
export const isLostRedisState = (error: unknown): boolean =>
  error instanceof Error && /SETTINGS_KEY_NOT_FOUND|UNKNOWN_CLIENT/.test(error.message);
