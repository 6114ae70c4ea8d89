import type { Kysely } from 'kysely';
import { operatorOwner } from '../domain/custody';
import type { Schema } from './schema';

export interface Tenant {
  id: string;
  name: string;
  /** Open intents it may have at once; null: the relayer's default. */
  maxInFlight: number | null;
}

/** A tenant by its id; the operators' own owner (`@operator`, domain/custody.ts) is none. */
export async function findTenant(db: Kysely<Schema>, id: string): Promise<Tenant | undefined> {
  if (id === operatorOwner) return undefined;
  const row = await db
    .selectFrom('tenants')
    .select(['id', 'name', 'max_in_flight'])
    .where('id', '=', id)
    .executeTakeFirst();
  return row && { id: row.id, name: row.name, maxInFlight: row.max_in_flight };
}

/** The weight a tenant's workflows start with; undefined: the default (1), or no such tenant. */
export async function fairnessWeightOf(
  db: Kysely<Schema>,
  tenantId: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('tenants')
    .select('fairness_weight')
    .where('id', '=', tenantId)
    .executeTakeFirst();
  return row?.fairness_weight ?? undefined;
}

/** Sets a tenant's weight (null: back to the default); false when there is no such tenant. */
export async function setFairnessWeight(
  db: Kysely<Schema>,
  tenantId: string,
  weight: number | null,
): Promise<boolean> {
  const result = await db
    .updateTable('tenants')
    .set({ fairness_weight: weight })
    .where('id', '=', tenantId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
