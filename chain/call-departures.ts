import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import type { CallDeparture } from '../domain/call-departure';

const current = new AsyncLocalStorage<CallDeparture>();
const departures = new WeakMap<object, CallDeparture>();
let listening = false;

/**
 * Node's fetch (undici) makes a request, then writes it once a socket is free: on a busy process
 * that can be 100 ms later, and the provider counts the call from then. undici publishes both
 * moments on diagnostics channels; the request made inside `call` is matched to `departure` by
 * the async context it was made in. A call that never leaves (no socket, an error) says nothing.
 */
function listen(): void {
  if (listening) return;
  listening = true;
  subscribe('undici:request:create', (message) => {
    const departure = current.getStore();
    if (departure) departures.set((message as { request: object }).request, departure);
  });
  subscribe('undici:client:sendHeaders', (message) => {
    const { request } = message as { request: object };
    departures.get(request)?.left();
    departures.delete(request);
  });
}

/**
 * Runs `call`, whose HTTP requests tell `departure` when they leave — and the departure `call` is
 * already inside of (a send the sends window decided, then the endpoint's budget).
 */
export function departing<T>(departure: CallDeparture, call: () => Promise<T>): Promise<T> {
  listen();
  const outer = current.getStore();
  const both: CallDeparture = outer
    ? {
        left() {
          outer.left();
          departure.left();
        },
      }
    : departure;
  return current.run(both, call);
}
