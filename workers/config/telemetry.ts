import { z } from 'zod';
import { optional, setting, url } from './parsers';

/** Traces: off unless a collector is named, so a process without one pays nothing for them. */
export const telemetrySettings = {
  otlpEndpoint: setting({
    env: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    fallback: '',
    doc: 'Export traces over OTLP/HTTP to this collector (e.g. http://localhost:4318, Jaeger); unset: no tracing at all (nothing instrumented, no interceptor in the workflow code)',
    parse: optional(url),
  }),
  serviceName: setting({
    env: 'OTEL_SERVICE_NAME',
    fallback: 'payment-relayer',
    doc: "The service name every span of this process carries (a trace's processes are told apart by their process id)",
    parse: z.string().min(1, { error: 'must not be empty' }),
  }),
};
