import { NativeConnection } from '@temporalio/worker';
import { ConfigError } from './config/load';
import type { TemporalConnectConfig } from './config/temporal-profile';

/**
 * Connects to Temporal as the settings say. A refusal at start (an unreachable address, a TLS
 * handshake or a key the server turns down) stops the process with what the server said and the
 * settings that decide it; the certificate and key files are read, never echoed.
 */
export async function connectTemporal(temporal: TemporalConnectConfig): Promise<NativeConnection> {
  try {
    return await NativeConnection.connect(temporal.connection);
  } catch (error) {
    const said = error instanceof Error ? error.message : String(error);
    const cause = likelyCause(temporal, said);
    throw new ConfigError({
      problems: [
        `Temporal at ${temporal.described}: ${whatHappened(temporal, said)} (${said})`,
        ...(cause ? [cause] : []),
        'decided by TEMPORAL_ADDRESS, TEMPORAL_PROFILE / TEMPORAL_CONFIG_FILE, TEMPORAL_TLS*, TEMPORAL_API_KEY',
      ],
      heading: 'cannot connect to Temporal',
    });
  }
}

/** The transport's error in words: which of the usual failures it was. */
export function whatHappened({ connection }: TemporalConnectConfig, said: string): string {
  const host = connection.address?.replace(/:\d+$/, '') ?? 'the address';
  if (/dns error|failed to lookup address/i.test(said)) {
    return `the name ${host} did not resolve (DNS): check TEMPORAL_ADDRESS or the profile's address`;
  }
  if (/ConnectionRefused|Connection refused/i.test(said)) {
    return 'nothing listens there (connection refused): is the server running, on that port?';
  }
  if (/InvalidContentType|wrong version number|CorruptMessage/i.test(said)) {
    return 'the server does not speak TLS: try TEMPORAL_TLS=false';
  }
  if (/timed out|deadline has elapsed/i.test(said)) {
    return 'no answer in time: a firewall, or the wrong host';
  }
  return 'the connection failed';
}

/**
 * A server that ends the connection during the handshake says only that it did: what that
 * usually means for these settings.
 */
function likelyCause({ connection }: TemporalConnectConfig, said: string): string | undefined {
  // The same refusal reads "transport error … broken pipe" or "… Canceled, connection closed",
  // by when the server's close reached the client.
  if (!/transport error|broken pipe|connection reset|connection closed/i.test(said)) {
    return undefined;
  }
  const { tls, apiKey } = connection;
  if (!tls) {
    return 'likely: the server takes TLS only (turn it on: TEMPORAL_TLS=true, or a TEMPORAL_TLS_* file)';
  }
  if (typeof tls === 'object' && !tls.clientCertPair && !apiKey) {
    return 'likely: the server requires a client certificate (TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH), or one its CA signed';
  }
  return undefined;
}
