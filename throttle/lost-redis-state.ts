/**
 * Bottleneck recreates its Redis state when it finds it gone (Redis restarted, keys flushed) by
 * comparing the error text to "SETTINGS_KEY_NOT_FOUND", and registers itself again on
 * "UNKNOWN_CLIENT" (the state was recreated by another process after a restart); Redis 7
 * prefixes script errors with "ERR ", so neither ever matches and every later job fails: the
 * owner recreates the limiter.
 */
export const isLostRedisState = (error: unknown): boolean =>
  error instanceof Error && /SETTINGS_KEY_NOT_FOUND|UNKNOWN_CLIENT/.test(error.message);
