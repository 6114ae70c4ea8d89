import { Client } from '@temporalio/client';
import { Registry } from 'prom-client';
import { buildApi } from '../api/server';
import type { ChainRegistry } from '../chain/chain';
import { openDatabase } from '../store/database';
import type { OpenApiPaths } from './endpoint-table';

/**
 * The API's OpenAPI document, as GET /openapi.json answers it, from an API built on an in-memory
 * database with no chain and a Temporal client that never connects (nothing is called).
 */
export async function openApiDocument(): Promise<OpenApiPaths> {
  const database = await openDatabase('sqlite::memory:');
  const noChains: ChainRegistry = {
    chainIds: [],
    get: (chainId) => {
      throw new Error(`no chain ${chainId} while the OpenAPI document is made`);
    },
  };
  const api = await buildApi({
    database,
    client: new Client(),
    chains: noChains,
    taskQueue: 'openapi-document',
    admission: { tenantMaxInFlight: 0, maxAwaitingApproval: 0, backlogLimit: 0, perSecond: 1 },
    registry: new Registry(),
  });
  try {
    return (await api.app.inject({ method: 'GET', url: '/openapi.json' })).json<OpenApiPaths>();
  } finally {
    await api.app.close();
    await database.close();
  }
}
