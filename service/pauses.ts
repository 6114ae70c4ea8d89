import {
  PauseConflictError,
  PauseNotFoundError,
  UnknownChainError,
  UnknownTenantError,
} from '../domain/errors';
import { pauseOver, PauseScope, type Pause } from '../domain/pause';
import { IdPrefix, newId } from '../operations/new-id';
import {
  activePauses,
  findPause,
  insertPause,
  intentsWaitingUnder,
  markResumed,
  pauseHistory,
} from '../store/pauses';
import { findTenant } from '../store/tenants';
import { intentWorkflow } from '../client/intent-workflows';
import { actorOf, type Caller } from './caller';
import type { ServiceDependencies } from './dependencies';

type Deps = Pick<ServiceDependencies, 'database' | 'client' | 'chains'> & { clock?: () => Date };

export interface PauseRequest {
  scope: PauseScope;
  tenantId?: string;
  chainId?: number;
  note: string;
  refuseAdmission?: boolean;
}

/** Resume signals in flight at once: thousands of held intents are told in order, not at once. */
const signalsAtOnce = 16;

/**
 * Pauses the relayer, a tenant or a chain: from the workers' next look (a second) nothing new in
 * it takes a permit. The same subject paused already on the same terms answers with the pause in
 * force; asked to refuse new intents now, a new pause replaces it, the old one ended with a note
 * naming its successor, so its history keeps both notes. A pause cannot admit again what one in
 * force refuses: that is a resume.
 */
export async function pause(
  deps: Deps,
  caller: Caller,
  request: PauseRequest,
): Promise<{ pause: Pause; created: boolean; replaced: Pause | null }> {
  const target = await targetOf(deps, request);
  const now = deps.clock?.() ?? new Date();
  const { database } = deps;
  const refuseAdmission = request.refuseAdmission ?? false;
  return database.transaction(async (trx) => {
    const existing = (await activePauses(trx)).find(
      (active) => active.scope === request.scope && active.target === target,
    );
    if (existing) {
      if (existing.refuseAdmission && !refuseAdmission) throw new PauseConflictError(existing);
      if (existing.refuseAdmission === refuseAdmission) {
        return { pause: existing, created: false, replaced: null };
      }
    }
    const created = {
      id: newId(IdPrefix.pause, now.getTime()),
      scope: request.scope,
      target,
      note: request.note,
      refuseAdmission,
      pausedBy: actorOf(caller),
      pausedAt: now,
    };
    if (existing) {
      const note = `replaced by ${created.id}${refuseAdmission ? ', refusing new intents' : ''}: ${request.note}`;
      await markResumed(trx, existing.id, { actor: actorOf(caller), note }, now);
    }
    await insertPause(trx, created);
    return {
      pause: { ...created, resumedBy: null, resumedAt: null, resumeNote: null },
      created: true,
      replaced: existing ?? null,
    };
  });
}

async function targetOf(deps: Deps, request: PauseRequest): Promise<string> {
  if (request.scope === PauseScope.tenant) {
    if (!(await findTenant(deps.database.kysely, request.tenantId!))) {
      throw new UnknownTenantError(request.tenantId!);
    }
    return request.tenantId!;
  }
  if (request.scope === PauseScope.chain) {
    if (!deps.chains.chainIds.includes(request.chainId!)) {
      throw new UnknownChainError(request.chainId!, deps.chains.chainIds);
    }
    return String(request.chainId);
  }
  return '';
}

/**
 * Ends a pause, then tells each intent it held back (oldest first) to ask for its permit now; an
 * intent still under another pause stays. One not told (a signal lost) asks again on its own
 * within its recheck time.
 */
export async function resume(
  deps: Deps,
  caller: Caller,
  pauseId: string,
  note: string | null,
): Promise<Pause> {
  const { database, client } = deps;
  const now = deps.clock?.() ?? new Date();
  if (!(await markResumed(database.kysely, pauseId, { actor: actorOf(caller), note }, now))) {
    throw new PauseNotFoundError(pauseId);
  }
  const ended = (await findPause(database.kysely, pauseId))!;
  const stillPaused = await activePauses(database.kysely);
  const held = (await intentsWaitingUnder(database.kysely, ended)).filter(
    (intent) => !pauseOver(stillPaused, intent),
  );
  for (let start = 0; start < held.length; start += signalsAtOnce) {
    await Promise.all(
      held.slice(start, start + signalsAtOnce).map((intent) =>
        intentWorkflow(client, intent.id)
          .tellResumed()
          .catch(() => undefined),
      ),
    );
  }
  return ended;
}

/** The pauses in force, or (`all`) every pause with the resumed ones, newest first. */
export async function listPauses(deps: Pick<Deps, 'database'>, all: boolean): Promise<Pause[]> {
  return all
    ? pauseHistory(deps.database.kysely, 500)
    : (await activePauses(deps.database.kysely)).reverse();
}
