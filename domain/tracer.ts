import { SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';

/** The name our own spans carry (JSON-RPC calls, signer calls, webhook deliveries). */
const relayerTracerName = 'payment-relayer';

/**
 * Runs `work` inside a span of its own when it is part of a trace (a request's, a step's): the
 * background's calls (a block watcher's polls, a wallet watch) would each be a trace of one span,
 * thousands an hour, burying the intents' traces and holding memory in the exporter's queue. With
 * traces off (no provider registered, workers/tracing.ts) no span is ever active, so this costs a
 * function call. A failure marks the span and is rethrown as it was.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: () => Promise<T>,
): Promise<T> {
  if (!trace.getActiveSpan()?.isRecording()) return work();
  return trace
    .getTracer(relayerTracerName)
    .startActiveSpan(name, { kind: SpanKind.CLIENT, attributes }, async (span) => {
      try {
        return await work();
      } catch (error) {
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error),
        });
        throw error;
      } finally {
        span.end();
      }
    });
}

/** The trace a log line belongs to, when traces are on and one is active: its ids, for pino. */
export function activeTraceIds(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/** Names the active span (the HTTP server's) after what it turned out to be: a route. */
export function nameActiveSpan(name: string, attributes: Attributes): void {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return;
  span.updateName(name);
  span.setAttributes(attributes);
}
