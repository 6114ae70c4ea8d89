/** One intent's calls as the provider weighs them: its sends, whole, and the rest as units. */
export interface CallMix {
  /** Units of one send (eth_sendRawTransaction's weight). */
  sendUnits: number;
  sendsPerIntent: number;
  /** Every other call's units, per intent. */
  otherUnitsPerIntent: number;
}

/**
 * The most of `quota` (units a second) any limiter can use while it keeps every window of
 * `windowMs` within the quota — what a provider counting any rolling second asks — for `mix`.
 * Sends are whole: a window holding reads of R units has room for ⌊(quota − R) ÷ sendUnits⌋ sends
 * and no more, so where a send weighs a sixth of the quota and reads an eighth of an intent's
 * units, the sixth send never fits and its room goes unused whatever the order of the calls.
 * Calls spread evenly over time (bunched, they do worse): an upper bound, not a forecast.
 */
export function packingBound(quota: number, windowMs: number, mix: CallMix): number {
  const { sendUnits, sendsPerIntent, otherUnitsPerIntent } = mix;
  const unitsPerIntent = sendUnits * sendsPerIntent + otherUnitsPerIntent;
  if (unitsPerIntent <= 0) return 0;
  const windowSeconds = windowMs / 1000;
  const fits = (intentsPerSecond: number) => {
    const reads = intentsPerSecond * otherUnitsPerIntent * windowSeconds;
    const sends = intentsPerSecond * sendsPerIntent * windowSeconds;
    if (reads + sends * sendUnits > quota) return false;
    return sendUnits === 0 || sends <= Math.floor((quota - reads) / sendUnits);
  };
  // Whether a rate fits falls as the rate grows: bisect between nothing and the quota's units.
  let low = 0;
  let high = quota / unitsPerIntent / windowSeconds;
  for (let step = 0; step < 60; step++) {
    const middle = (low + high) / 2;
    if (fits(middle)) low = middle;
    else high = middle;
  }
  return (low * unitsPerIntent) / quota;
}
