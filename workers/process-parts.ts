import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import type Redis from 'ioredis';
import type { Registry } from 'prom-client';
import type { Failpoints } from '../activities/failpoints';
import type { ChainRegistry } from '../chain/chain';
import type { Database } from '../store/database';
import type { RelayerConfig } from './config/load';
import type { SignerFactory } from './wallet-signers';
import type { Tracing } from './tracing';
import type { WalletSigner } from '../chain/signers/wallet-signer';

/** What one relayer process opens once and its roles share. */
export interface SharedParts {
  config: RelayerConfig;
  processId: string;
  failpoints?: Failpoints;
  metrics: Registry;
  database: Database;
  chains: ChainRegistry;
  signers: readonly WalletSigner[];
  signerFor: SignerFactory;
  client: Client;
  connection: NativeConnection;
  /** The process's Redis (REDIS_URL), when it has one. */
  redis?: Redis;
  /** Traces (OTEL_EXPORTER_OTLP_ENDPOINT), when they are on. */
  tracing?: Tracing;
}
