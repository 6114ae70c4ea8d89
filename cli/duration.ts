import { badInput } from './exit-codes';

const unitMs = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `30d`, `12h`, `90m` as ms; anything else is bad input naming `flag`. */
export const durationFlag = (flag: string) => (value: string) => {
  const match = /^([1-9]\d{0,5})([mhd])$/.exec(value);
  if (!match) {
    throw badInput(
      `${flag}: a whole number of minutes, hours or days: 90m, 12h, 30d (got "${value}")`,
    );
  }
  return Number(match[1]) * unitMs[match[2] as keyof typeof unitMs];
};
