import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../workers/config/load';
import { resolveTemporal } from '../../workers/config/temporal-profile';
import { whatHappened } from '../../workers/temporal-connection';
import { scratchDir } from '../harness/scratch-dir';

/**
 * The connection options a Temporal profile and the TEMPORAL_* variables produce, through the
 * SDK's envconfig (the API-key path: the open-source server checks no key, so it is shown here).
 */
const dir = scratchDir('temporal-profile');
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const cert = file('client.pem', '-----BEGIN CERTIFICATE-----\nclient\n-----END CERTIFICATE-----\n');
const key = file('client.key', '-----BEGIN PRIVATE KEY-----\nkey\n-----END PRIVATE KEY-----\n');
const ca = file('ca.pem', '-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----\n');
const apiKey = 'tcld-secret-api-key-never-shown';
const toml = file(
  'temporal.toml',
  [
    '[profile.cloud]',
    'address = "acme.a1b2c.tmprl.cloud:7233"',
    'namespace = "acme.a1b2c"',
    `api_key = "${apiKey}"`,
    '',
    '[profile.mtls]',
    'address = "temporal.internal:7233"',
    'namespace = "payments"',
    '[profile.mtls.tls]',
    `client_cert_path = "${cert}"`,
    `client_key_path = "${key}"`,
    `server_ca_cert_path = "${ca}"`,
    'server_name = "frontend.temporal.internal"',
    '',
    '[profile.lost]',
    'address = "temporal.internal:7233"',
    '[profile.lost.tls]',
    `client_cert_path = "${join(dir, 'gone.pem')}"`,
    `client_key_path = "${key}"`,
  ].join('\n'),
);
const resolved = (env: Record<string, string>) => {
  const { temporal, problems } = resolveTemporal(env);
  expect(problems).toEqual([]);
  return temporal!;
};
const problems = (env: Record<string, string>) => resolveTemporal(env).problems;

describe('the Temporal connection of a profile and the TEMPORAL_* variables', () => {
  it("says in words what the transport's error was", () => {
    const temporal = resolved({ TEMPORAL_ADDRESS: 'temporal.internal:7233' });
    const cases: [string, RegExp][] = [
      [
        'tonic::transport::Error(Transport, ConnectError(ConnectError("dns error", Custom { kind: Uncategorized, error: "failed to lookup address information: Name or service not known" })))',
        /^the name temporal\.internal did not resolve \(DNS\)/,
      ],
      [
        'tonic::transport::Error(Transport, ConnectError(Custom { kind: InvalidData, error: InvalidMessage(InvalidContentType) }))',
        /^the server does not speak TLS: try TEMPORAL_TLS=false$/,
      ],
      [
        'tonic::transport::Error(Transport, ConnectError(ConnectError("tcp connect error", 127.0.0.1:1, Os { code: 111, kind: ConnectionRefused, message: "Connection refused" })))',
        /^nothing listens there \(connection refused\)/,
      ],
    ];
    for (const [said, words] of cases) expect(whatHappened(temporal, said)).toMatch(words);
  });

  it('is plaintext to localhost:7233, namespace default, when nothing says otherwise', () => {
    expect(resolved({})).toEqual({
      connection: { address: 'localhost:7233', tls: undefined },
      namespace: 'default',
      described: 'localhost:7233, namespace default, no TLS',
    });
  });

  it('turns TLS on with an API key (Temporal Cloud), unless TEMPORAL_TLS says false; the key is never described', () => {
    const cloud = resolved({ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'cloud' });
    expect(cloud.connection).toMatchObject({
      address: 'acme.a1b2c.tmprl.cloud:7233',
      apiKey,
      tls: true,
    });
    expect(cloud.namespace).toBe('acme.a1b2c');
    expect(cloud.described).toBe(
      'acme.a1b2c.tmprl.cloud:7233, namespace acme.a1b2c, TLS, an API key',
    );
    const byVariables = resolved({
      TEMPORAL_ADDRESS: 'other.tmprl.cloud:7233',
      TEMPORAL_API_KEY: apiKey,
      TEMPORAL_TLS: 'false',
    });
    expect(byVariables.connection).toMatchObject({ apiKey, tls: false });
    expect(JSON.stringify([cloud.described, byVariables.described])).not.toContain(apiKey);
  });

  it('reads mTLS files from a profile, the variables over it', () => {
    const mtls = resolved({
      TEMPORAL_CONFIG_FILE: toml,
      TEMPORAL_PROFILE: 'mtls',
      TEMPORAL_NAMESPACE: 'payments-eu',
    });
    expect(mtls.connection.address).toBe('temporal.internal:7233');
    expect(mtls.namespace).toBe('payments-eu');
    const tls = mtls.connection.tls as Exclude<typeof mtls.connection.tls, boolean | null>;
    expect(Buffer.from(tls!.clientCertPair!.crt).toString()).toContain('client');
    expect(Buffer.from(tls!.clientCertPair!.key).toString()).toContain('PRIVATE KEY');
    expect(Buffer.from(tls!.serverRootCACertificate!).toString()).toContain('ca');
    expect(tls!.serverNameOverride).toBe('frontend.temporal.internal');
    expect(mtls.described).toBe(
      'temporal.internal:7233, namespace payments-eu, TLS, a client certificate, the server CA from a file, server name frontend.temporal.internal',
    );
    expect(
      resolved({
        TEMPORAL_TLS_CLIENT_CERT_PATH: cert,
        TEMPORAL_TLS_CLIENT_KEY_PATH: key,
      }).described,
    ).toBe('localhost:7233, namespace default, TLS, a client certificate');
  });

  it('names the setting behind each problem: a file that cannot be read, a missing profile, half a key pair, a key the file does not know', () => {
    expect(problems({ TEMPORAL_CONFIG_FILE: join(dir, 'none.toml') })).toEqual([
      `TEMPORAL_CONFIG_FILE: cannot read ${join(dir, 'none.toml')} (ENOENT)`,
    ]);
    expect(problems({ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'staging' })).toEqual([
      `TEMPORAL_PROFILE: no profile "staging" in ${toml}`,
    ]);
    expect(
      problems({
        TEMPORAL_TLS_CLIENT_CERT_PATH: join(dir, 'missing.pem'),
        TEMPORAL_TLS_CLIENT_KEY_PATH: key,
      }),
    ).toEqual([`TEMPORAL_TLS_CLIENT_CERT_PATH: cannot read ${join(dir, 'missing.pem')} (ENOENT)`]);
    expect(problems({ TEMPORAL_TLS_CLIENT_CERT_PATH: cert })).toEqual([
      "TEMPORAL_TLS_CLIENT_CERT_PATH is set without TEMPORAL_TLS_CLIENT_KEY_PATH or the default profile's tls.client_key_path: a client certificate needs its key, and a key its certificate",
    ]);
    const halfPair = file(
      'half.toml',
      `[profile.half]\naddress = "t:7233"\n[profile.half.tls]\nclient_cert_path = "${cert}"\n`,
    );
    expect(problems({ TEMPORAL_CONFIG_FILE: halfPair, TEMPORAL_PROFILE: 'half' })).toEqual([
      `the half profile's tls.client_cert_path in ${halfPair} is set without TEMPORAL_TLS_CLIENT_KEY_PATH or the half profile's tls.client_key_path: a client certificate needs its key, and a key its certificate`,
    ]);
    const der = file('client.der', '0\x82\x01binary');
    expect(
      problems({ TEMPORAL_TLS_CLIENT_CERT_PATH: cert, TEMPORAL_TLS_CLIENT_KEY_PATH: der }),
    ).toEqual([
      `TEMPORAL_TLS_CLIENT_KEY_PATH: ${der} is not PEM (no "-----BEGIN …-----" line): give the PEM file`,
    ]);
    expect(problems({ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'lost' })).toEqual([
      `the lost profile's tls.client_cert_path in ${toml}: cannot read ${join(dir, 'gone.pem')} (ENOENT)`,
    ]);
    const typo = file('typo.toml', '[profile.default]\naddres = "x:1"\n');
    expect(problems({ TEMPORAL_CONFIG_FILE: typo })[0]).toMatch(
      new RegExp(`^TEMPORAL_CONFIG_FILE: ${typo}: .*addres`),
    );
  });

  it('stops a process at start with the problem, never echoing the API key', () => {
    const env = {
      HOT_WALLET_KEYS: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
      TEMPORAL_API_KEY: apiKey,
      TEMPORAL_TLS_CLIENT_CERT_PATH: cert,
    };
    expect(() => loadConfig(env)).toThrow(
      /TEMPORAL_TLS_CLIENT_CERT_PATH is set without TEMPORAL_TLS_CLIENT_KEY_PATH/,
    );
    expect(() => loadConfig(env)).not.toThrow(new RegExp(apiKey));
    expect(loadConfig({ ...env, TEMPORAL_TLS_CLIENT_KEY_PATH: key }).temporal.described).toBe(
      'localhost:7233, namespace default, TLS, a client certificate, an API key',
    );
  });
});
