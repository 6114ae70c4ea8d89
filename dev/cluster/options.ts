import { ConfigError } from '../../workers/config/load';

/** A whole-number flag from `min` to `max`, or a usage error naming the flag. */
export function wholeNumber(flag: string, value: string, min: number, max: number, usage: string) {
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || parsed < min || parsed > max) {
    throw new ConfigError({
      problems: [
        `--${flag}: must be a whole number from ${min} to ${max} (got "${value}")`,
        '',
        usage,
      ],
      heading: 'invalid command line',
    });
  }
  return parsed;
}
