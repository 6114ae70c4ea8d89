import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createApiClient } from '../../cli/api-client';
import { startLocalWorld, type LocalWorld } from '../harness/stack/local-world';
import { startPostgres, type PostgresServer } from '../harness/stack/postgres';
import { makeTestCertificates, type TestCertificates } from '../harness/stack/test-certificates';
import { startTemporalServer, type TemporalServer } from '../harness/stack/temporal-server';
import { waitFor } from '../harness/stack/wait-for';
import { startRelayerProcess } from '../../workers/relayer-process';
import { createKeys } from '../harness/api';

/**
 * A secured Temporal: the cluster's server (built from source, on PostgreSQL) with mTLS on its
 * frontend, its certificates made at start. The relayer's worker and API reach it through
 * TEMPORAL_TLS_* as any secured cluster; the dev server has no TLS to prove this on.
 */
jest.setTimeout(300_000);

let certificates: TestCertificates;
let postgres: PostgresServer;
let temporal: TemporalServer;
let world: LocalWorld;
beforeAll(async () => {
  certificates = makeTestCertificates();
  postgres = await startPostgres();
  temporal = await startTemporalServer({
    postgresUrl: postgres.url,
    progress: () => undefined,
    tls: certificates,
  });
  world = await startLocalWorld({ temporalAddress: temporal.address, tenants: { acme: '5' } });
});
afterAll(async () => {
  await world?.stop();
  await temporal?.stop();
  await postgres?.stop();
  certificates?.remove();
});

const trustingTheServer = () => ({
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: certificates.ca,
  TEMPORAL_TLS_SERVER_NAME: 'localhost',
});

describe('a Temporal frontend that requires mTLS', () => {
  it('a worker and the API reach it with a client certificate: an intent end to end', async () => {
    const config = world.config({
      ...trustingTheServer(),
      TEMPORAL_TLS_CLIENT_CERT_PATH: certificates.client.cert,
      TEMPORAL_TLS_CLIENT_KEY_PATH: certificates.client.key,
    });
    expect(config.temporal.described).toBe(
      `${temporal.address}, namespace default, TLS, a client certificate, the server CA from a file, server name localhost`,
    );
    const relayer = await startRelayerProcess(config, ['worker', 'api']);
    try {
      const tenant = createApiClient(relayer.apiUrl!, (await createKeys(world, ['acme'])).acme);
      const to = privateKeyToAccount(generatePrivateKey()).address;
      const { body } = await tenant.submit(
        { chainId: world.anvil.chainId, to, amount: parseEther('0.1').toString() },
        'through-mtls',
      );
      await waitFor(
        async () => (await tenant.get(body.id)).status === 'confirmed',
        'the intent to be confirmed',
        60_000,
      );
      expect(await world.testClient.getBalance({ address: to })).toBe(parseEther('0.1'));
    } finally {
      await relayer.stop();
    }
  });

  it('refuses a process without a client certificate, or without TLS, at start, saying so', async () => {
    const refusal = (settings: Record<string, string>) =>
      startRelayerProcess(world.config(settings), ['worker']).then(
        () => 'started',
        (error: Error) => error.message,
      );
    const heading = `^cannot connect to Temporal:\\n {2}Temporal at ${temporal.address}, namespace default`;
    expect(await refusal(trustingTheServer())).toMatch(
      new RegExp(
        `${heading}, TLS, the server CA from a file, server name localhost: the connection failed \\(.+\\)\\n {2}likely: the server requires a client certificate \\(TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH\\)`,
      ),
    );
    expect(await refusal({})).toMatch(
      new RegExp(
        `${heading}, no TLS: the connection failed \\(.+\\)\\n {2}likely: the server takes TLS only`,
      ),
    );
  });
});
