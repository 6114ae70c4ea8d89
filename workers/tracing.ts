import { createRequire } from 'node:module';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { ClientInterceptors } from '@temporalio/client';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { ActivityInterceptorsFactory, WorkerOptions } from '@temporalio/worker';
import type { Role } from './config/role';

/**
 * One process's traces, when OTEL_EXPORTER_OTLP_ENDPOINT names a collector: the HTTP server and
 * every outgoing HTTP call (node:http, and fetch, which viem and the webhook sender use), the
 * Temporal client, workflows and activities (their context travels in Temporal headers, so an
 * intent's life from `POST /v1/intents` to its receipt is one trace), and our own spans (each
 * JSON-RPC call, signer call and webhook delivery: domain/tracer.ts).
 */
export interface Tracing {
  /** For every Temporal client of the process: a workflow started carries the caller's context. */
  readonly clientInterceptors: ClientInterceptors;
  /** Outermost activity interceptor: a step's span holds everything the step does. */
  readonly activityInterceptors: ActivityInterceptorsFactory;
  /** Workflow spans leave the sandbox through this sink (workflows cannot do I/O). */
  readonly sinks: NonNullable<WorkerOptions['sinks']>;
  /** Sends the spans still buffered; a process stopping calls it last. */
  shutdown(): Promise<void>;
}

/** Paths that are polled, not used: a span for each would bury the requests that matter. */
const unTracedPaths = new Set(['/metrics', '/healthz', '/readyz']);

export function startTracing(options: {
  endpoint: string;
  serviceName: string;
  processId: string;
  roles: readonly Role[];
}): Tracing {
  const resource = new Resource({
    'service.name': options.serviceName,
    'service.instance.id': options.processId,
    'relayer.roles': options.roles.join('+'),
  });
  const exporter = new OTLPTraceExporter({
    url: new URL(
      'v1/traces',
      options.endpoint.endsWith('/') ? options.endpoint : `${options.endpoint}/`,
    ).href,
  });
  const spans = new BatchSpanProcessor(exporter);
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spans] });
  // The global provider, the AsyncLocalStorage context and the W3C `traceparent` propagator.
  provider.register();
  const disableInstrumentations = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      // Outgoing calls only inside a trace (see domain/tracer.ts's inSpan).
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) =>
          unTracedPaths.has((request.url ?? '').split('?')[0] ?? ''),
        requireParentforOutgoingSpans: true,
      }),
      new UndiciInstrumentation({ requireParentforSpans: true }),
    ],
  });
  // node:http was loaded before this ran (every process imports its server first); the hook
  // patches a module when it is next required through require() (not import()), and the patch
  // (http.request, Server.prototype.emit) then serves every user of the module. Without this, no
  // request would start a trace.
  const requireAgain = createRequire(__filename);
  requireAgain('node:http');
  requireAgain('node:https');
  return {
    clientInterceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
    activityInterceptors: (context) => ({
      inbound: new OpenTelemetryActivityInboundInterceptor(context),
      outbound: new OpenTelemetryActivityOutboundInterceptor(context),
    }),
    sinks: { exporter: makeWorkflowExporter(spans, resource) },
    async shutdown() {
      disableInstrumentations();
      await provider.shutdown();
    },
  };
}
