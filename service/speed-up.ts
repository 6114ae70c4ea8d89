import type { Client } from '@temporalio/client';
import { intentWorkflow } from '../client/intent-workflows';
import { CannotSpeedUpError } from '../domain/errors';
import { IntentStatus, type Intent } from '../domain/intent';
import type { SpeedUpRequest } from '../domain/review';
import { problemOfStatus } from '../operations/speed-up';
import type { Database } from '../store/database';
import { getIntent } from '../store/intents';
import { actorOf, type Caller } from './caller';
import { findIntentFor } from './intent-queries';
import { askIntentWorkflow } from './update-refusal';

export interface SpeedUpDependencies {
  database: Database;
  client: Client;
}

/**
 * Speeds up a payment a caller may see, sent and not mined: its workflow signs it again at its
 * nonce with a higher bid (the `speedUp` update), and the answer is the intent with the
 * replacement as its current transaction. Refused (CannotSpeedUp, writing nothing) before that
 * when there is nothing to replace.
 */
export async function speedUpIntent(
  deps: SpeedUpDependencies,
  caller: Caller,
  intentId: string,
  request: Omit<SpeedUpRequest, 'actor'>,
): Promise<Intent> {
  const intent = await findIntentFor(deps.database, caller, intentId);
  const { status } = intent;
  const refused = (problem: CannotSpeedUpError['details']['problem'], why: string) =>
    new CannotSpeedUpError({ intentId, status, problem, why });
  if (status !== IntentStatus.signed && status !== IntentStatus.confirming) {
    throw refused(problemOfStatus(status), 'only a payment sent and not mined can be sped up');
  }
  await askIntentWorkflow(
    deps.client,
    intentId,
    () => intentWorkflow(deps.client, intentId).speedUp({ actor: actorOf(caller), ...request }),
    () => refused('ended', 'its workflow has ended, so nothing would follow a replacement'),
  );
  return getIntent(deps.database.kysely, intentId);
}
