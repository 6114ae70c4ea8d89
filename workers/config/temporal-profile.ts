import { accessSync, constants, readFileSync } from 'node:fs';
import {
  loadClientConfigProfile,
  toClientOptions,
  type ClientConfigProfile,
} from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';

/** How the process connects to Temporal, resolved from a profile and the variables over it. */
export interface TemporalConnectConfig {
  connection: NativeConnectionOptions & { address: string };
  namespace: string;
  /** Where and how (TLS, a client certificate, an API key), never a secret: for logs and errors. */
  described: string;
}

/** The profile's files, each with the variable and the profile key that can name it. */
const tlsFiles = [
  ['clientCert', 'TEMPORAL_TLS_CLIENT_CERT_PATH', 'tls.client_cert_path'],
  ['clientKey', 'TEMPORAL_TLS_CLIENT_KEY_PATH', 'tls.client_key_path'],
  ['serverCACert', 'TEMPORAL_TLS_SERVER_CA_CERT_PATH', 'tls.server_ca_cert_path'],
] as const;

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code ?? String(error);

/**
 * The Temporal connection of `env` through the SDK's envconfig: the profile (TEMPORAL_PROFILE,
 * else `default`) of the config file (TEMPORAL_CONFIG_FILE, else the CLI's default file if there
 * is one), then TEMPORAL_* variables over it. TLS is on with an API key, unless turned off. Each
 * problem names the variable, or the profile key and file, that caused it.
 */
export function resolveTemporal(env: Record<string, string | undefined>): {
  temporal?: TemporalConnectConfig;
  problems: string[];
} {
  const vars = Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => !!entry[1]?.trim()),
  );
  const file = vars.TEMPORAL_CONFIG_FILE;
  if (file) {
    try {
      accessSync(file, constants.R_OK);
    } catch (error) {
      return { problems: [`TEMPORAL_CONFIG_FILE: cannot read ${file} (${errorCode(error)})`] };
    }
  }
  let profile: ClientConfigProfile;
  try {
    profile = loadClientConfigProfile({ overrideEnvVars: vars, configFileStrict: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const problem = /^Profile '.*' not found/.test(message)
      ? `TEMPORAL_PROFILE: no profile "${vars.TEMPORAL_PROFILE}" in ${file ?? 'the Temporal config file'}`
      : `TEMPORAL_CONFIG_FILE: ${file ?? 'the Temporal config file'}: ${message}`;
    return { problems: [problem] };
  }
  const profileName = vars.TEMPORAL_PROFILE ?? 'default';
  const where = (variable: string, key: string) =>
    vars[variable]
      ? variable
      : `the ${profileName} profile's ${key} in ${file ?? 'the config file'}`;
  const problems: string[] = [];
  for (const [field, variable, key] of tlsFiles) {
    const source = profile.tls?.[field];
    if (!source || !('path' in source)) continue;
    let text: string;
    try {
      text = readFileSync(source.path, 'utf8');
    } catch (error) {
      problems.push(`${where(variable, key)}: cannot read ${source.path} (${errorCode(error)})`);
      continue;
    }
    // Checked here, before connecting: the transport would only say the handshake failed.
    if (!/-----BEGIN [A-Z0-9 ]+-----/.test(text)) {
      problems.push(
        `${where(variable, key)}: ${source.path} is not PEM (no "-----BEGIN …-----" line): give the PEM file`,
      );
    }
  }
  if (!profile.tls?.clientCert !== !profile.tls?.clientKey) {
    const [[, givenVariable, givenKey], [, missingVariable, missingKey]] = profile.tls?.clientCert
      ? [tlsFiles[0], tlsFiles[1]]
      : [tlsFiles[1], tlsFiles[0]];
    problems.push(
      `${where(givenVariable, givenKey)} is set without ${missingVariable} or the ${profileName} profile's ${missingKey}: a client certificate needs its key, and a key its certificate`,
    );
  }
  if (problems.length > 0) return { problems };
  const address = profile.address ?? 'localhost:7233';
  const namespace = profile.namespace ?? 'default';
  const { connectionOptions } = toClientOptions({ ...profile, address });
  return {
    temporal: {
      connection: { ...connectionOptions, address },
      namespace,
      described: describe(address, namespace, connectionOptions),
    },
    problems,
  };
}

function describe(address: string, namespace: string, options: NativeConnectionOptions): string {
  const { tls, apiKey } = options;
  const how = !tls
    ? 'no TLS'
    : typeof tls === 'object'
      ? [
          'TLS',
          tls.clientCertPair && 'a client certificate',
          tls.serverRootCACertificate && 'the server CA from a file',
          tls.serverNameOverride && `server name ${tls.serverNameOverride}`,
        ]
          .filter(Boolean)
          .join(', ')
      : 'TLS';
  return `${address}, namespace ${namespace}, ${how}${apiKey ? ', an API key' : ''}`;
}
