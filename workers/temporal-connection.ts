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
    throw new ConfigError(
      [
        `Temporal at ${temporal.described} refused the connection: ${said}`,
        'decided by TEMPORAL_ADDRESS, TEMPORAL_PROFILE / TEMPORAL_CONFIG_FILE, TEMPORAL_TLS*, TEMPORAL_API_KEY',
      ],
      'cannot connect to Temporal',
    );
  }
}
