import { nativeBookOf } from '../../../domain/ledger-book';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import { createTestClient, http, parseEther, publicActions } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Chain, ChainRegistry } from '../../../chain/chain';
import type { Hex } from '../../../domain/transfer';
import { createChainRegistry, createEvmChain } from '../../../chain/evm-chain';
import { openDatabase, type Database } from '../../../store/database';
import { createTenant, deposit } from '../../../store/ledger';
import { registerWallet } from '../../../store/wallet-nonces';
import { evmChainSettings } from '../../../workers/chain-settings';
import { loadConfig, type RelayerConfig } from '../../../workers/config/load';
import { startAnvil, type Anvil, type AnvilOptions } from './anvil';
import { startRedis, type RedisServer } from './redis';
import { RpcProxy } from './rpc-proxy';
import { localPollingIntervalMs } from './solidity';

const anvilClient = (rpcUrl: string) =>
  createTestClient({
    mode: 'anvil',
    transport: http(rpcUrl, { retryCount: 0 }),
    pollingInterval: localPollingIntervalMs,
  }).extend(publicActions);

/**
 * A chain, a database and funded tenants on one machine: what tests, the examples and the
 * benchmark run workers against. Workers reach the chain through `proxy` when there is one, so
 * it sees every call they make; the world's own reads go to anvil directly.
 */
export interface LocalWorld {
  anvil: Anvil;
  proxy?: RpcProxy;
  redis?: RedisServer;
  /** anvil's own methods (mining, balances) and the usual reads, for checking ground truth. */
  testClient: ReturnType<typeof anvilClient>;
  database: Database;
  databaseUrl: string;
  /** The book of anvil's native coin, where the world's tenants' deposits are. */
  nativeBook: string;
  chain: Chain;
  chains: ChainRegistry;
  /** Sending wallets registered with the relayer. */
  wallets: Hex[];
  walletKeys: Hex[];
  /** Worker environment pointing at this world; `overrides` win. */
  env(overrides?: Record<string, string>): Record<string, string>;
  config(overrides?: Record<string, string>): RelayerConfig;
  stop(): Promise<void>;
}

export interface LocalWorldOptions {
  /** Temporal frontend the workers use. */
  temporalAddress?: string;
  anvil?: AnvilOptions;
  wallets?: number;
  confirmations?: number;
  /** Tenant id → ether deposited. */
  tenants?: Record<string, string>;
  /** Put an RpcProxy between the workers and anvil. */
  proxy?: boolean;
  /** Start a redis-server and share the quota through it. */
  redis?: boolean;
  /**
   * A PostgreSQL server (postgres://…/any) to keep the world's data in a fresh database of its
   * own, dropped at stop; without it, a fresh SQLite file.
   */
  postgresServerUrl?: string;
  /** Worker settings (environment variables) of this world, e.g. STUCK_AFTER_MS. */
  settings?: Record<string, string>;
}

export async function startLocalWorld(options: LocalWorldOptions = {}): Promise<LocalWorld> {
  // Whatever started is stopped again if a later part fails: a world never half-exists.
  const stops: (() => Promise<unknown>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
  };
  try {
    return await buildLocalWorld(options, stops, stopAll);
  } catch (error) {
    await stopAll();
    throw error;
  }
}

async function buildLocalWorld(
  options: LocalWorldOptions,
  stops: (() => Promise<unknown>)[],
  stopAll: () => Promise<void>,
): Promise<LocalWorld> {
  const anvil = await startAnvil(options.anvil);
  stops.push(() => anvil.stop());
  const proxy = options.proxy ? await RpcProxy.start(anvil.rpcUrl) : undefined;
  if (proxy) stops.push(() => proxy.close());
  const redis = options.redis ? await startRedis() : undefined;
  if (redis) stops.push(() => redis.stop());
  const dir = mkdtempSync(join(tmpdir(), 'relayer-world-'));
  stops.push(async () => rmSync(dir, { recursive: true, force: true }));
  const scratch = options.postgresServerUrl
    ? await createScratchDatabase(options.postgresServerUrl)
    : undefined;
  if (scratch) stops.push(() => scratch.drop());
  const databaseUrl = scratch?.url ?? `sqlite:${join(dir, 'relayer.sqlite')}`;
  const database = await openDatabase(databaseUrl);
  stops.push(() => database.close());
  const walletKeys = anvil.keys.slice(0, options.wallets ?? 2);
  const confirmations = options.confirmations ?? 1;
  const env = (overrides: Record<string, string> = {}): Record<string, string> => ({
    ...(options.temporalAddress && { TEMPORAL_ADDRESS: options.temporalAddress }),
    DATABASE_URL: databaseUrl,
    RPC_URLS: proxy?.url ?? anvil.rpcUrl,
    CHAIN_ID: String(anvil.chainId),
    HOT_WALLET_KEYS: walletKeys.join(','),
    CONFIRMATIONS: String(confirmations),
    CONFIRM_POLL_INTERVAL_MS: '100',
    LOG_LEVEL: 'WARN',
    // Each test's task queue would otherwise leave a schedule behind on the shared dev server.
    ORPHAN_SWEEP_MS: '0',
    // A look on a loaded machine can come 300 ms after the send (3 polls, the automatic
    // threshold): a test that wants `intent.delayed` asks for it.
    DELAYED_AFTER_MS: '60000',
    ...(redis && { REDIS_URL: redis.url }),
    ...options.settings,
    ...overrides,
  });
  // The world's own chain reads anvil directly, with the settings its workers get.
  const chain = createEvmChain(evmChainSettings(loadConfig(env({ RPC_URLS: anvil.rpcUrl }))));
  const wallets = walletKeys.map((key) => privateKeyToAccount(key).address);
  for (const address of wallets) {
    const chainNonce = await chain.pendingNonce(address);
    await registerWallet(database, { chainId: anvil.chainId, address }, chainNonce);
  }
  const now = new Date();
  for (const [id, ether] of Object.entries(options.tenants ?? { acme: '100', globex: '100' })) {
    await createTenant(database, { id, name: id }, now);
    await deposit(database, id, parseEther(ether), now, nativeBookOf(anvil.chainId));
  }
  return {
    anvil,
    proxy,
    redis,
    testClient: anvilClient(anvil.rpcUrl),
    database,
    databaseUrl,
    nativeBook: nativeBookOf(anvil.chainId),
    chain,
    chains: createChainRegistry([chain]),
    wallets,
    walletKeys,
    env,
    config: (overrides) => loadConfig(env(overrides)),
    stop: stopAll,
  };
}

/** A new, empty database on a PostgreSQL server, dropped by `drop`. */
export async function createScratchDatabase(
  serverUrl: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `relayer_${randomBytes(6).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new PgClient({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE ${name} WITH (FORCE)`) };
}
