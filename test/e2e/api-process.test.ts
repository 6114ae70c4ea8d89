import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { scratchDir } from '../harness/scratch-dir';
import { createApiClient } from '../../cli/api-client';
import { freePort } from '../harness/stack/free-port';
import { waitFor } from '../harness/stack/wait-for';
import { stopSummary } from '../harness/stack/worker-process';
import { createKeys, paymentBody } from '../harness/api';
import { useWorld } from '../harness/test-world';

const world = useWorld();

describe('an API process beside a worker process', () => {
  it('stops at start when Temporal refuses its connection, saying in words what happened and which settings decide, before touching the database', async () => {
    // TLS to the plaintext dev server: the handshake fails. A fresh database stays unmigrated.
    const fresh = join(scratchDir('api-process'), `fresh-${randomUUID()}.sqlite`);
    const refused = await world
      .spawnApi({
        API_PORT: String(await freePort()),
        HOT_WALLET_KEYS: '',
        TEMPORAL_TLS: 'true',
        DATABASE_URL: `sqlite:${fresh}`,
      })
      .catch((error: unknown) => error);
    expect(String(refused)).toMatch(
      /cannot connect to Temporal:\n {2}Temporal at 127\.0\.0\.1:\d+, namespace default, TLS: the server does not speak TLS: try TEMPORAL_TLS=false \(.+\)\n {2}decided by TEMPORAL_ADDRESS, TEMPORAL_PROFILE \/ TEMPORAL_CONFIG_FILE, TEMPORAL_TLS\*, TEMPORAL_API_KEY/,
    );
    expect(existsSync(fresh)).toBe(false);
  });

  it('takes intents over HTTP to confirmed and reports them in every metrics endpoint', async () => {
    const [apiPort, metricsPort, sdkMetricsPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const taskQueue = `api-process-${randomUUID()}`;
    const [worker] = await world.spawnWorkers(1, {
      TASK_QUEUE: taskQueue,
      METRICS_PORT: String(metricsPort),
      TEMPORAL_METRICS_PORT: String(sdkMetricsPort),
    });
    // The API process signs nothing: it gets no keys.
    const apiProcess = await world.spawnApi({
      TASK_QUEUE: taskQueue,
      API_PORT: String(apiPort),
      TENANT_MAX_IN_FLIGHT: '10',
      HOT_WALLET_KEYS: '',
    });
    expect(apiProcess.output()).toContain(`API http://127.0.0.1:${apiPort}`);
    expect(worker!.output()).not.toContain('API http');
    const keys = await createKeys(world, ['acme']);
    const api = createApiClient(`http://127.0.0.1:${apiPort}`, keys.acme);
    const ids = await Promise.all(
      Array.from(
        { length: 6 },
        async (_, i) => (await api.submit(paymentBody(world), `e2e-${i}`)).body.id,
      ),
    );
    await waitFor(
      async () => (await api.list({ status: 'confirmed' })).intents.length === ids.length,
      'every intent to confirm',
      60_000,
    );

    // Operators see the wallets from the API process, which holds none of their keys.
    const operator = createApiClient(`http://127.0.0.1:${apiPort}`, keys.operator);
    expect((await operator.wallets()).map((wallet) => wallet.address).sort()).toEqual(
      [...world.wallets].sort(),
    );

    const apiMetrics = await (await fetch(`http://127.0.0.1:${apiPort}/metrics`)).text();
    expect(apiMetrics).toMatch(/^relayer_intents_submitted_total 6$/m);
    expect(apiMetrics).toMatch(/^relayer_intents\{status="confirmed"\} 6$/m);
    expect(apiMetrics).toMatch(/^relayer_intents_queued 0$/m);
    const workerMetrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(workerMetrics).toMatch(
      /^relayer_intents_finished_total\{status="confirmed",asset="native"\} 6$/m,
    );
    expect(workerMetrics).toMatch(
      /^relayer_intent_latency_seconds_count\{status="confirmed"\} 6$/m,
    );
    expect(workerMetrics).toMatch(/^relayer_permit_wait_seconds_count 6$/m);
    expect(workerMetrics).toMatch(/^relayer_permits_in_use 0$/m);
    const sdkMetrics = await (await fetch(`http://127.0.0.1:${sdkMetricsPort}/metrics`)).text();
    expect(sdkMetrics).toMatch(/^temporal_\w+/m);

    apiProcess.signal('SIGTERM');
    worker!.signal('SIGTERM');
    expect(await apiProcess.exited).toBe(0);
    expect(await worker!.exited).toBe(0);
    expect(stopSummary(worker!.output())).toMatchObject({ sent: 6, panics: 0 });
  });
});
