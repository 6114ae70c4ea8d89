import { z } from 'zod';
import { integer, list, url, extraChain, optional, separated, setting } from './parsers';

/** Where the process connects: Temporal, the database, the chains. */
export const connectionsSettings = {
  taskQueue: setting({
    env: 'TASK_QUEUE',
    fallback: 'payment-relayer',
    doc: 'Main task queue; the throttle and permit queues are named after it',
    parse: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/, { error: 'must be letters, digits, ".", "_" or "-"' }),
  }),
  databaseUrl: setting({
    env: 'DATABASE_URL',
    fallback: 'sqlite:.relayer/relayer.sqlite',
    doc: 'postgres://… for PostgreSQL, sqlite:<file> for an SQLite file',
    // Carries the database password: never echoed.
    secret: true,
    parse: z.string().regex(/^(postgres(ql)?:\/\/.+|sqlite:.+)$/, {
      error: 'must start with postgres://, postgresql:// or sqlite:',
    }),
  }),
  chainId: setting({
    env: 'CHAIN_ID',
    fallback: '31337',
    doc: 'EVM chain id the RPC endpoints serve',
    parse: integer(1),
  }),
  rpcUrls: setting({
    env: 'RPC_URLS',
    fallback: 'http://127.0.0.1:8545',
    doc: 'Comma-separated JSON-RPC endpoints, tried in order (failover)',
    // Provider URLs often carry an API key: never echoed.
    secret: true,
    parse: list(url),
  }),
  chainsFile: setting({
    env: 'CHAINS_FILE',
    fallback: '',
    doc: 'A YAML or JSON file of the chains served, each with its own endpoints and quotas, block time, confirmations, gas pricing, fee caps, wallets and low-balance mark (docs/chains.md); instead of CHAIN_ID, RPC_URLS and EXTRA_CHAINS, whose other settings become its defaults',
    parse: optional(z.string().min(1)),
  }),
  extraChains: setting({
    env: 'EXTRA_CHAINS',
    fallback: '',
    doc: 'More EVM chains served at once: `<chainId>=<url>[,<url>…]`, `;` between chains (same wallets, confirmations, caps and quota)',
    secret: true,
    parse: separated(';')
      .pipe(z.array(extraChain))
      .refine((chains) => new Set(chains.map((c) => c.chainId)).size === chains.length, {
        error: 'names a chain id twice',
      }),
  }),
};
