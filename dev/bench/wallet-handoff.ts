import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { LocalWorld } from '../../test/harness/stack/local-world';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';
import { percentile } from './rates';
import { millisOf } from './latency-split';

const EventType = temporal.api.enums.v1.EventType;

/** Where the time goes between one item's signature and the next one's, per wallet. */
export interface HandoffBreakdown {
  samples: number;
  /** Median milliseconds of each phase, in the order they happen. */
  phases: Record<HandoffPhase, number>;
  /** Median milliseconds from one signature to the next of the same wallet. */
  total: number;
  /** Median history events of an item's workflow. */
  events: number;
}

export const handoffPhases = [
  'sign stored → told',
  'told → task started',
  'task',
  'task done → send step started',
  'send step → sign stored',
] as const;
export type HandoffPhase = (typeof handoffPhases)[number];

/**
 * Reads the histories of up to `count` consecutive items of a batch's first wallet from the
 * middle of the batch, and each item's stored signature time: the wallet-turn handoff, from one
 * signature to the word that lets the next item sign and on to its signature, broken into its
 * phases (medians). Undefined when the items did not sign on a word.
 */
export async function walletHandoff(
  world: LocalWorld,
  client: Client,
  batchId: string,
  count = 40,
): Promise<HandoffBreakdown | undefined> {
  const rows = await world.database.kysely
    .selectFrom('batch_items as item')
    .innerJoin('transaction_attempts as attempt', 'attempt.intent_id', 'item.intent_id')
    .select(['item.intent_id', 'item.from_address', 'attempt.created_at', 'attempt.nonce'])
    .where('item.batch_id', '=', batchId)
    .where('attempt.attempt', '=', 1)
    .orderBy('attempt.nonce')
    .execute();
  const wallet = rows[0]?.from_address;
  if (!wallet) return undefined;
  const ofWallet = rows.filter((row) => row.from_address === wallet);
  const middle = Math.max(0, Math.floor(ofWallet.length / 2) - count / 2);
  const items = ofWallet.slice(middle, middle + count + 1);
  const phases = new Map<HandoffPhase, number[]>(handoffPhases.map((phase) => [phase, []]));
  const totals: number[] = [];
  const eventCounts: number[] = [];
  for (let i = 1; i < items.length; i++) {
    const before = new Date(items[i - 1]!.created_at).getTime();
    const signed = new Date(items[i]!.created_at).getTime();
    const history = await client.workflow
      .getHandle(paymentIntentWorkflowId(items[i]!.intent_id!))
      .fetchHistory();
    eventCounts.push(history.events?.length ?? 0);
    const events = (history.events ?? []).map((event) => ({
      type: event.eventType,
      time: millisOf(event.eventTime),
      activity: event.activityTaskScheduledEventAttributes?.activityType?.name,
    }));
    // The send step, and the last word before it: the one that let the item sign.
    const sendScheduled = events.findIndex((event) => event.activity === 'broadcast');
    const signals = events
      .map((event, at) =>
        event.type === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED ? at : -1,
      )
      .filter((at) => at >= 0 && at < sendScheduled);
    const toldAt = signals.at(-1) ?? -1;
    if (sendScheduled < 0 || toldAt < 0) continue;
    const after = (type: number, from: number) =>
      events.slice(from).find((event) => event.type === type)?.time;
    const told = events[toldAt]!.time;
    const taskStarted = after(EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED, toldAt);
    const taskDone = after(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, toldAt);
    const sendStarted = after(EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED, sendScheduled);
    if (taskStarted === undefined || taskDone === undefined || sendStarted === undefined) continue;
    const spans: Record<HandoffPhase, number> = {
      'sign stored → told': told - before,
      'told → task started': taskStarted - told,
      task: taskDone - taskStarted,
      'task done → send step started': sendStarted - taskDone,
      'send step → sign stored': signed - sendStarted,
    };
    for (const phase of handoffPhases) phases.get(phase)!.push(spans[phase]);
    totals.push(signed - before);
  }
  if (totals.length === 0) return undefined;
  const median = (values: number[]) =>
    percentile(
      [...values].sort((a, b) => a - b),
      0.5,
    );
  return {
    samples: totals.length,
    phases: Object.fromEntries(
      handoffPhases.map((phase) => [phase, median(phases.get(phase)!)]),
    ) as Record<HandoffPhase, number>,
    total: median(totals),
    events: median(eventCounts),
  };
}
