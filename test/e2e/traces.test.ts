import { Client, Connection } from '@temporalio/client';
import { randomBytes, randomUUID } from 'node:crypto';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';
import { freePort } from '../harness/stack/free-port';
import { startJaeger, type Jaeger } from '../harness/stack/jaeger';
import { waitFor } from '../harness/stack/wait-for';
import { tracedBundlePath, writeWorkflowBundle } from '../../workers/workflow-code';
import { createKeys, paymentBody } from '../harness/api';
import { useWorld } from '../harness/test-world';

const world = useWorld();
let jaeger: Jaeger | undefined;

beforeAll(async () => {
  // The workers load the traced twin of the suite's bundle, as a production worker would.
  const bundlePath = process.env.WORKFLOW_BUNDLE_PATH!;
  [jaeger] = await Promise.all([
    startJaeger((message) => console.log(message)),
    writeWorkflowBundle(tracedBundlePath(bundlePath), { traced: true }),
  ]);
}, 600_000);

world.onStop(async () => {
  await jaeger?.stop();
});

/** The relayer reads a receipt by block or by hash, whichever costs fewer quota units. */
const receiptLooks = new Set(['eth_getBlockReceipts', 'eth_getTransactionReceipt']);

interface JaegerSpan {
  spanID: string;
  operationName: string;
  processID: string;
  references: { refType: string; spanID: string }[];
  /** Since the epoch, and how long: both in µs. */
  startTime: number;
  duration: number;
}

const parentOf = (span: JaegerSpan): string | undefined =>
  span.references.find((ref) => ref.refType === 'CHILD_OF')?.spanID;

/** The trace as a tree, a span a line: its start from the trace's, its duration, its process. */
function traceTree(trace: JaegerTrace): string {
  const start = Math.min(...trace.spans.map((span) => span.startTime));
  const children = new Map<string | undefined, JaegerSpan[]>();
  const ids = new Set(trace.spans.map((span) => span.spanID));
  for (const span of trace.spans) {
    const parent = ids.has(parentOf(span) ?? '') ? parentOf(span) : undefined;
    children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number) => {
    for (const span of (children.get(parent) ?? []).sort((a, b) => a.startTime - b.startTime)) {
      const at = ((span.startTime - start) / 1000).toFixed(1).padStart(7);
      const took = (span.duration / 1000).toFixed(1).padStart(7);
      const service = trace.processes[span.processID]?.serviceName ?? '?';
      lines.push(`${at} ms ${took} ms  ${'  '.repeat(depth)}${span.operationName}  [${service}]`);
      walk(span.spanID, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines.join('\n');
}

interface JaegerTrace {
  spans: JaegerSpan[];
  processes: Record<string, { serviceName: string }>;
}

describe('traces, exported to a real Jaeger', () => {
  it('one trace holds an intent from POST /v1/intents through its workflow and steps to the receipt', async () => {
    const taskQueue = `traces-${randomUUID()}`;
    const apiPort = await freePort();
    const tracing = { OTEL_EXPORTER_OTLP_ENDPOINT: jaeger!.otlpEndpoint, TASK_QUEUE: taskQueue };
    const [worker] = await world.spawnWorkers(1, {
      ...tracing,
      OTEL_SERVICE_NAME: 'relayer-worker',
    });
    const api = await world.spawnApi({
      ...tracing,
      OTEL_SERVICE_NAME: 'relayer-api',
      API_PORT: String(apiPort),
      HOT_WALLET_KEYS: '',
    });
    const keys = await createKeys(world, ['acme']);

    // The caller's own trace: the relayer's spans join it (W3C traceparent).
    const traceId = randomBytes(16).toString('hex');
    const response = await fetch(`http://127.0.0.1:${apiPort}/v1/intents`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${keys.acme}`,
        'content-type': 'application/json',
        'idempotency-key': 'traced-1',
        traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
      },
      body: JSON.stringify(paymentBody(world)),
    });
    expect(response.status).toBe(202);
    const { id } = (await response.json()) as { id: string };
    await waitFor(
      async () =>
        (
          await world.database.kysely
            .selectFrom('intents')
            .select('status')
            .where('id', '=', id)
            .executeTakeFirst()
        )?.status === 'confirmed',
      'the traced intent to confirm',
      60_000,
    );
    // And its workflow's end: its last task ends the workflow's own spans.
    const connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
    try {
      const handle = new Client({ connection }).workflow.getHandle(paymentIntentWorkflowId(id));
      await waitFor(
        async () => (await handle.describe()).status.name === 'COMPLETED',
        'the traced intent workflow to complete',
        30_000,
      );
    } finally {
      await connection.close();
    }
    // Stopping flushes what each process still buffers.
    api.signal('SIGTERM');
    worker!.signal('SIGTERM');
    expect(await api.exited).toBe(0);
    expect(await worker!.exited).toBe(0);

    let trace: JaegerTrace | undefined;
    await waitFor(
      async () => {
        const answer = await fetch(`${jaeger!.queryUrl}/api/traces/${traceId}`);
        if (!answer.ok) return false;
        trace = ((await answer.json()) as { data: JaegerTrace[] }).data[0];
        return trace?.spans.some((span) => receiptLooks.has(span.operationName)) ?? false;
      },
      `trace ${traceId} in Jaeger with its receipt look`,
      20_000,
    ).catch(async (error: Error) => {
      const services = await (await fetch(`${jaeger!.queryUrl}/api/services`)).text();
      throw new Error(
        `${error.message}; Jaeger knows the services ${services} and the trace's spans ${
          trace ? trace.spans.map((span) => span.operationName).join(', ') : '(none)'
        }`,
      );
    });
    const spans = trace!.spans;
    const names = new Set(spans.map((span) => span.operationName));
    console.log(
      `trace ${traceId}, ${spans.length} spans (start, duration, span, process):\n${traceTree(trace!)}`,
    );
    expect([...names]).toEqual(
      expect.arrayContaining([
        'POST /v1/intents',
        'StartWorkflow:paymentIntentV2',
        'RunWorkflow:paymentIntentV2',
        ...['tryAcquirePermit', 'markSettling', 'hold', 'broadcast', 'confirm'].map(
          (step) => `RunActivity:${step}`,
        ),
        'sign transaction',
        'eth_sendRawTransaction',
      ]),
    );
    // Each call sits under the step that made it.
    const byId = new Map(spans.map((span) => [span.spanID, span]));
    const stepOf = (span: JaegerSpan): string | undefined => {
      for (let at: JaegerSpan | undefined = span; at;) {
        if (at.operationName.startsWith('RunActivity:')) return at.operationName;
        at = byId.get(parentOf(at) ?? '');
      }
      return undefined;
    };
    const stepsOf = (names: Set<string>) =>
      new Set(spans.filter((span) => names.has(span.operationName)).map(stepOf));
    expect(stepsOf(new Set(['sign transaction', 'eth_sendRawTransaction']))).toEqual(
      new Set(['RunActivity:broadcast']),
    );
    expect(stepsOf(receiptLooks)).toEqual(new Set(['RunActivity:confirm']));
    // Both processes wrote into the one trace, and every span but the caller's is parented in it.
    const services = new Set(Object.values(trace!.processes).map((p) => p.serviceName));
    expect(services).toEqual(new Set(['relayer-api', 'relayer-worker']));
    const ids = new Set(spans.map((span) => span.spanID));
    const roots = spans.filter((span) => !ids.has(parentOf(span) ?? ''));
    expect(roots.map((span) => span.operationName)).toEqual(['POST /v1/intents']);
  });
});
