import { SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';

/** The name our own spans carry (JSON-RPC calls, signer calls, webhook deliveries). */
export const relayerTracerName = 'payment-relayer';

/**
 * Runs `work` inside a span of its own when traces are on (workers/tracing.ts registers the
 * provider); with none registered the OpenTelemetry API hands out a no-op span, so this costs a
 * function call. A failure marks the span and is rethrown as it was.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: () => Promise<T>,
): Promise<T> {
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
