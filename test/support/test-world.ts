import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestClient, http, parseEther, publicActions } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Chain, ChainRegistry, Hex } from '../../activities/chain/chain';
import { createChainRegistry, createEvmChain } from '../../activities/chain/evm-chain';
import { openDatabase, type Database } from '../../activities/store/database';
import { createTenant, deposit } from '../../activities/store/ledger';
import { registerWallet } from '../../activities/store/wallet-nonces';
import { startAnvil, type Anvil, type AnvilOptions } from '../../stack/anvil';
import { loadConfig, type RelayerConfig } from '../../workers/config';

const anvilClient = (rpcUrl: string) =>
  createTestClient({ mode: 'anvil', transport: http(rpcUrl, { retryCount: 0 }) }).extend(
    publicActions,
  );

export interface TestWorld {
  anvil: Anvil;
  /** anvil's own methods (mining, balances) and the usual reads, for checking ground truth. */
  testClient: ReturnType<typeof anvilClient>;
  database: Database;
  databaseUrl: string;
  chain: Chain;
  chains: ChainRegistry;
  /** Sending wallets registered with the relayer. */
  wallets: Hex[];
  walletKeys: Hex[];
  /** Worker configuration pointing at this world (Temporal address from the shared dev server). */
  config(overrides?: Record<string, string>): RelayerConfig;
  stop(): Promise<void>;
}

export interface TestWorldOptions {
  anvil?: AnvilOptions;
  wallets?: number;
  confirmations?: number;
  tenants?: Record<string, string>;
}

/** A fresh chain, a fresh SQLite file, registered wallets and funded tenants, per test file. */
export async function startTestWorld(options: TestWorldOptions = {}): Promise<TestWorld> {
  const anvil = await startAnvil(options.anvil);
  const dir = mkdtempSync(join(tmpdir(), 'relayer-test-'));
  const databaseUrl = `sqlite:${join(dir, 'relayer.sqlite')}`;
  const database = await openDatabase(databaseUrl);
  const walletKeys = anvil.keys.slice(0, options.wallets ?? 2);
  const chain = createEvmChain({
    chainId: anvil.chainId,
    rpcUrls: [anvil.rpcUrl],
    hotWalletKeys: walletKeys,
    confirmations: options.confirmations ?? 1,
    pollIntervalMs: 100,
    rpcTimeoutMs: 5000,
  });
  const wallets = walletKeys.map((key) => privateKeyToAccount(key).address);
  for (const address of wallets) {
    await registerWallet(
      database,
      { chainId: anvil.chainId, address },
      await chain.pendingNonce(address),
    );
  }
  const now = new Date();
  for (const [id, ether] of Object.entries(options.tenants ?? { acme: '100', globex: '100' })) {
    await createTenant(database, { id, name: id }, now);
    await deposit(database, id, parseEther(ether), now);
  }
  return {
    anvil,
    testClient: anvilClient(anvil.rpcUrl),
    database,
    databaseUrl,
    chain,
    chains: createChainRegistry([chain]),
    wallets,
    walletKeys,
    config: (overrides = {}) =>
      loadConfig({
        TEMPORAL_ADDRESS: process.env.TEMPORAL_TEST_ADDRESS,
        DATABASE_URL: databaseUrl,
        RPC_URLS: anvil.rpcUrl,
        CHAIN_ID: String(anvil.chainId),
        HOT_WALLET_KEYS: walletKeys.join(','),
        CONFIRMATIONS: String(options.confirmations ?? 1),
        CONFIRM_POLL_INTERVAL_MS: '100',
        ...overrides,
      }),
    async stop() {
      await database.close();
      await anvil.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
