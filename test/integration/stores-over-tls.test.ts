import Redis from 'ioredis';
import { sql } from 'kysely';
import { readFileSync } from 'node:fs';
import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { makeTestCertificates, type TestCertificates } from '../harness/stack/test-certificates';
import { startPostgres, type PostgresServer } from '../harness/stack/postgres';
import { startRedis, type RedisServer } from '../harness/stack/redis';
import { waitFor } from '../harness/stack/wait-for';
import { openDatabase } from '../../store/database';
import { startRelayerProcess } from '../../workers/relayer-process';
import { createKeys, startApiWithoutWorkers } from '../harness/api';
import { startTestWorld } from '../harness/test-world';

/**
 * The stores as managed offerings run them: PostgreSQL and Redis over TLS, the server's
 * certificate checked against a CA file and its name. Each server is the test stack's own,
 * started with TLS and a certificate made for it (test/harness/stack/test-certificates.ts).
 */
let certificates: TestCertificates;
let postgres: PostgresServer;
let redis: RedisServer;
beforeAll(async () => {
  certificates = makeTestCertificates();
  [postgres, redis] = await Promise.all([
    startPostgres({ tls: certificates }),
    startRedis({ tls: certificates }),
  ]);
});
afterAll(async () => {
  await Promise.all([postgres?.stop(), redis?.stop()]);
  certificates?.remove();
});

describe('stores over TLS', () => {
  it('PostgreSQL with sslmode=verify-full and a CA file, Redis over rediss:// with a CA file: an intent end to end', async () => {
    const world = await startTestWorld({
      postgresServerUrl: postgres.tlsUrl,
      tenants: { acme: '5' },
    });
    const api = await startApiWithoutWorkers(world);
    const relayer = await startRelayerProcess(
      world.config({
        TASK_QUEUE: api.taskQueue,
        REDIS_URL: redis.url,
        REDIS_TLS_CA_FILE: certificates.ca,
      }),
    );
    try {
      expect(world.databaseUrl).toMatch(
        /^postgres:\/\/postgres@localhost:\d+\/relayer_\w+\?sslmode=verify-full&sslrootcert=/,
      );
      const { rows } = await sql<{
        ssl: boolean;
      }>`select ssl from pg_stat_ssl where pid = pg_backend_pid()`.execute(world.database.kysely);
      expect(rows).toEqual([{ ssl: true }]);
      const tenant = api.as((await createKeys(world, ['acme'])).acme);
      const to = privateKeyToAccount(generatePrivateKey()).address;
      const { body } = await tenant.submit(
        { chainId: world.anvil.chainId, to, amount: parseEther('0.1').toString() },
        'over-tls',
      );
      await waitFor(
        async () => (await tenant.get(body.id)).status === 'confirmed',
        'the intent to be confirmed',
        30_000,
      );
      expect(await world.testClient.getBalance({ address: to })).toBe(parseEther('0.1'));
      // The quota's state lives in the TLS Redis.
      const client = new Redis(redis.url, { tls: { ca: readFileSync(certificates.ca, 'utf8') } });
      try {
        expect(await client.keys(`${api.taskQueue}:*`)).not.toEqual([]);
      } finally {
        client.disconnect();
      }
    } finally {
      await relayer.stop();
      await api.close();
      await world.stop();
    }
  });

  it('refuses at start a server whose certificate the given CA did not sign', async () => {
    const wrongCa = postgres.tlsUrl!.replace(
      encodeURIComponent(certificates.ca),
      encodeURIComponent(certificates.otherCa),
    );
    await expect(openDatabase(wrongCa)).rejects.toThrow(/DATABASE_URL: .*certificate/);
  });
});
