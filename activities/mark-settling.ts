import { IntentClosedError } from '../domain/errors';
import { IntentStatus, stepState } from '../domain/intent';
import type { ActivityDependencies } from './dependencies';
import { getIntent, transitionIntent } from '../store/intents';

export interface IntentStepParameters {
  intentId: string;
}

export interface IntentStepResult {
  status: IntentStatus;
}

/**
 * authorized → settling: the workflow takes ownership of the intent. A second run finds the
 * intent already past `authorized` and changes nothing.
 */
export const markSettling =
  ({ db, clock }: ActivityDependencies) =>
  async ({ intentId }: IntentStepParameters): Promise<IntentStepResult> => {
    const intent = await getIntent(db.kysely, intentId);
    const state = stepState(intent.status, IntentStatus.settling);
    if (state === 'closed') throw new IntentClosedError(intentId, intent.status);
    if (state === 'done') return { status: intent.status };
    const settled = await transitionIntent(
      db.kysely,
      intent,
      { status: IntentStatus.settling },
      clock.now(),
    );
    return { status: settled.status };
  };
