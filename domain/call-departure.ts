/**
 * Told when a call's HTTP request left this process (its headers were written to a socket): a
 * quota that decided the call earlier counts it from then (throttle/late-departure.ts).
 */
export interface CallDeparture {
  left(): void;
}
