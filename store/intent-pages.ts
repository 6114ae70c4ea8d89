import type { Kysely } from 'kysely';
import type { Intent, IntentStatus } from '../domain/intent';
import { whereCallerReference, type CallerReferenceQuery } from './caller-references';
import { intentFromRow } from './intents';
import type { Schema } from './schema';

export interface IntentPageQuery extends CallerReferenceQuery {
  tenantId?: string;
  status?: IntentStatus;
  /** Only intents older than this one (the last of the previous page). */
  after?: { createdAt: Date; id: string };
  limit: number;
}

/** Newest first; ties on the creation time are broken by id, so pages never skip or repeat. */
export async function listIntentPage(
  db: Kysely<Schema>,
  query: IntentPageQuery,
): Promise<Intent[]> {
  let select = db.selectFrom('intents').selectAll();
  if (query.tenantId !== undefined) select = select.where('tenant_id', '=', query.tenantId);
  if (query.status !== undefined) select = select.where('status', '=', query.status);
  select = whereCallerReference(select, query);
  const after = query.after;
  if (after) {
    const createdAt = after.createdAt.toISOString();
    select = select.where((eb) =>
      eb.or([
        eb('created_at', '<', createdAt),
        eb.and([eb('created_at', '=', createdAt), eb('id', '<', after.id)]),
      ]),
    );
  }
  const rows = await select
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(query.limit)
    .execute();
  return rows.map(intentFromRow);
}
