import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';

const EventType = temporal.api.enums.v1.EventType;

/** Where an intent's time went, read from its workflow's history (ms). */
export const latencyParts = [
  'workflow tasks queued',
  'workflow tasks run',
  'activities queued',
  'activities run',
  'timers',
  'between',
] as const;
export type LatencyPart = (typeof latencyParts)[number];

/** A history event's time in ms. */
export const millisOf = (time: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(time?.seconds ?? 0) * 1000 + (time?.nanos ?? 0) / 1e6;

/** Pairs of events whose span is one part: the first event's type, the closing one's, the part. */
const spans: [number, number, LatencyPart][] = [
  [
    EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
    EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
    'workflow tasks queued',
  ],
  [
    EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
    EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
    'workflow tasks run',
  ],
  [
    EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
    EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED,
    'activities queued',
  ],
  [
    EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED,
    EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
    'activities run',
  ],
  [EventType.EVENT_TYPE_TIMER_STARTED, EventType.EVENT_TYPE_TIMER_FIRED, 'timers'],
];

/**
 * An intent's workflow from its start to its last event, split into the time its tasks waited on
 * the server for a worker (queued), ran on a worker (a workflow task's run holds its local
 * activities: the permit's try, settling, the hold), its timers, and what lies between (the
 * worker's reply reaching the server, a task scheduled after another ends). Each span pairs an
 * event with the next closing one (steps of one intent run one at a time).
 */
export async function latencySplit(
  client: Client,
  intentId: string,
): Promise<Record<LatencyPart, number>> {
  const history = await client.workflow.getHandle(paymentIntentWorkflowId(intentId)).fetchHistory();
  const events = (history.events ?? []).map((event) => ({
    type: Number(event.eventType),
    time: millisOf(event.eventTime),
  }));
  const split = Object.fromEntries(latencyParts.map((part) => [part, 0])) as Record<
    LatencyPart,
    number
  >;
  for (const [opening, closing, part] of spans) {
    events.forEach((event, at) => {
      if (event.type !== opening) return;
      const closed = events.slice(at + 1).find((next) => next.type === closing);
      if (closed) split[part] += closed.time - event.time;
    });
  }
  const total = (events.at(-1)?.time ?? 0) - (events[0]?.time ?? 0);
  const counted = latencyParts.reduce((sum, part) => sum + split[part], 0);
  split.between = Math.max(0, total - counted);
  return split;
}
