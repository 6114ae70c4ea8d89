import { Client, Connection } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import type { ApiDependencies } from '../../api/api-context';
import { buildApi, type RelayerApi } from '../../api/server';
import { createApiClient, ApiError, type RelayerApiClient } from '../../cli/api-client';
import type { AdmissionLimits } from '../../operations/admission';
import { createApiKey } from '../../service/api-keys';
import type { LocalWorld } from './stack/local-world';

export interface ApiUnderTest {
  api: RelayerApi;
  url: string;
  client: Client;
  taskQueue: string;
  /** A client of the API with `apiKey` (none: anonymous). */
  as(apiKey?: string): RelayerApiClient;
  close(): Promise<void>;
}

/**
 * The API on a loopback port with nothing polling its task queue: admitted intents stay
 * `authorized`, so admission, cancellation and bad input can be tested without a race.
 */
export async function startApiWithoutWorkers(
  world: LocalWorld,
  admission: Partial<AdmissionLimits> = {},
  extra: Pick<ApiDependencies, 'webhooks' | 'requestLimits' | 'trustProxy'> = {},
): Promise<ApiUnderTest> {
  const connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
  const client = new Client({ connection });
  const taskQueue = `api-${randomUUID()}`;
  const api = await buildApi({
    database: world.database,
    client,
    chains: world.chains,
    taskQueue,
    admission: {
      tenantMaxInFlight: 2,
      maxAwaitingApproval: 100,
      backlogLimit: 100,
      perSecond: 10,
      ...admission,
    },
    registry: new Registry(),
    lowBalanceWei: world.config({}).lowBalance,
    ...extra,
  });
  const url = await api.app.listen({ port: 0, host: '127.0.0.1' });
  return {
    api,
    url,
    client,
    taskQueue,
    as: (apiKey) => createApiClient(url, apiKey),
    async close() {
      await api.app.close();
      await connection.close();
    },
  };
}

/** A key for each tenant named, and one operator key. */
export async function createKeys<T extends string>(
  world: LocalWorld,
  tenants: T[],
): Promise<Record<T | 'operator', string>> {
  const now = new Date();
  const keys = {} as Record<T | 'operator', string>;
  for (const tenantId of tenants) {
    keys[tenantId] = (
      await createApiKey(world.database, { role: 'tenant', tenantId, label: 'test' }, now)
    ).apiKey;
  }
  keys.operator = (
    await createApiKey(world.database, { role: 'operator', label: 'test operator' }, now)
  ).apiKey;
  return keys;
}

/** A payment from the world's first wallet to a fixed recipient. */
export const paymentBody = (world: LocalWorld, amount = '1000') => ({
  chainId: world.anvil.chainId,
  from: world.wallets[0]!,
  to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  amount,
});

/**
 * Every row of every table: equal snapshots mean nothing was written. But for `finalized_at`,
 * which the worker's finality sweep sets in the background on intents earlier tests confirmed,
 * and a key's `last_used_at`, whatever a request does.
 */
export async function databaseSnapshot(world: LocalWorld): Promise<unknown> {
  const db = world.database.kysely;
  const intents = await db.selectFrom('intents').selectAll().orderBy('id').execute();
  return {
    intents: intents.map((row) => ({ ...row, finalized_at: 'not compared' })),
    holds: await db.selectFrom('holds').selectAll().orderBy('intent_id').execute(),
    postings: await db.selectFrom('postings').selectAll().orderBy('id').execute(),
    accounts: await db.selectFrom('ledger_accounts').selectAll().orderBy('owner').execute(),
    audit: await db.selectFrom('audit_log').selectAll().orderBy('id').execute(),
    // A key's last use is noted by its authentication (once a minute), whatever the request.
    keys: (await db.selectFrom('api_keys').selectAll().orderBy('id').execute()).map((key) => ({
      ...key,
      last_used_at: 'not compared',
    })),
    attempts: await db.selectFrom('transaction_attempts').selectAll().orderBy('tx_hash').execute(),
    metadata: await db
      .selectFrom('intent_metadata')
      .selectAll()
      .orderBy('intent_id')
      .orderBy('key')
      .execute(),
  };
}

/** The API's refusal a call ends with (and fails the test if it did not refuse). */
export async function apiRefusal(call: Promise<unknown>): Promise<ApiError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('the call succeeded');
}
