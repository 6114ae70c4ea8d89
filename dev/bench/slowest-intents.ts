import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { table } from '../../cli/table';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';
import { millisOf } from './latency-split';

const EventType = temporal.api.enums.v1.EventType;

/** Where one slow intent's time went, read from its workflow's history (ms). */
export interface SlowIntent {
  id: string;
  totalMs: number;
  /** From the start to the end of its permit (acquire or try), ms. */
  permitMs: number;
  /** In its broadcast step(s), ms. */
  sendMs: number;
  /** Its confirm looks: how many, and the timers between them. */
  looks: number;
  lookTimersMs: number;
  /** Block follower signals that woke it. */
  wakes: number;
  /** From its first look to its end. */
  confirmationMs: number;
}

const permitSteps = new Set(['acquireThrottle', 'tryAcquirePermit']);

/** The breakdown of one intent's workflow history. */
export async function slowIntent(client: Client, id: string): Promise<SlowIntent> {
  const history = await client.workflow.getHandle(paymentIntentWorkflowId(id)).fetchHistory();
  const events = history.events ?? [];
  const start = millisOf(events[0]?.eventTime);
  const typeOfScheduled = new Map<number, string>();
  const slow: SlowIntent = {
    id,
    totalMs: millisOf(events.at(-1)?.eventTime) - start,
    permitMs: 0,
    sendMs: 0,
    looks: 0,
    lookTimersMs: 0,
    wakes: 0,
    confirmationMs: 0,
  };
  const scheduledAt = new Map<number, number>();
  const timerAt = new Map<string, number>();
  let firstLook: number | undefined;
  for (const event of events) {
    const at = millisOf(event.eventTime);
    const id = Number(event.eventId);
    switch (event.eventType) {
      case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED: {
        const type = event.activityTaskScheduledEventAttributes?.activityType?.name ?? '';
        typeOfScheduled.set(id, type);
        scheduledAt.set(id, at);
        if (type === 'confirm') {
          slow.looks += 1;
          firstLook ??= at;
        }
        break;
      }
      case EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
      case EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED: {
        const attributes =
          event.activityTaskCompletedEventAttributes ?? event.activityTaskFailedEventAttributes;
        const scheduled = Number(attributes?.scheduledEventId);
        const type = typeOfScheduled.get(scheduled);
        const took = at - (scheduledAt.get(scheduled) ?? at);
        if (type && permitSteps.has(type)) slow.permitMs = at - start;
        if (type === 'broadcast') slow.sendMs += took;
        break;
      }
      case EventType.EVENT_TYPE_TIMER_STARTED:
        timerAt.set(event.timerStartedEventAttributes?.timerId ?? '', at);
        break;
      case EventType.EVENT_TYPE_TIMER_FIRED:
      case EventType.EVENT_TYPE_TIMER_CANCELED: {
        const timerId =
          event.timerFiredEventAttributes?.timerId ?? event.timerCanceledEventAttributes?.timerId;
        const began = timerAt.get(timerId ?? '');
        if (firstLook !== undefined && began !== undefined) slow.lookTimersMs += at - began;
        break;
      }
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
        if (event.workflowExecutionSignaledEventAttributes?.signalName === 'transactionSeen') {
          slow.wakes += 1;
        }
        break;
    }
  }
  if (firstLook !== undefined) slow.confirmationMs = start + slow.totalMs - firstLook;
  return slow;
}

/** The slowest intents' breakdowns as a table (seconds). */
export function slowestTable(slowest: readonly SlowIntent[]): string {
  const s = (ms: number) => (ms / 1000).toFixed(1);
  const rows = table(
    [
      'slowest intents',
      'total s',
      'permit by s',
      'send s',
      'looks',
      'timers between looks s',
      'wakes',
      'first look → end s',
    ],
    ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
  for (const each of slowest) {
    rows.push([
      each.id,
      s(each.totalMs),
      s(each.permitMs),
      s(each.sendMs),
      String(each.looks),
      s(each.lookTimersMs),
      String(each.wakes),
      s(each.confirmationMs),
    ]);
  }
  return rows.toString();
}
