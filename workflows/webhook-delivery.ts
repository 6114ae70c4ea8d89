import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  continueAsNew,
  defineSignal,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { RelayerActivities } from '../activities';
import type { PumpWebhooksParameters } from '../activities/webhooks/pump-webhooks';
import { ErrorName } from '../domain/error-catalogue';

/** From the outbox's sweep: the endpoint has new events. */
export const webhookEventsSignal = defineSignal('webhookEvents');

export interface WebhookDeliveryInput extends PumpWebhooksParameters {
  /** How long the receiver gets to answer one attempt (WEBHOOK_TIMEOUT_MS). */
  attemptTimeoutMs: number;
  /**
   * The webhooks queue, whose slots run the pump while the workflow runs on the main queue.
   * Absent from runs started on the webhooks queue itself (before deliveries moved): those pump
   * on their own queue, as they always did.
   */
  pumpTaskQueue?: string;
}

/** How long an endpoint with nothing pending waits for more before its workflow ends. */
const idleMs = 60_000;
/** Runs of the pump before the workflow continues as new, keeping its history small. */
const runsPerWorkflow = 500;

const laneStoppers: string[] = [
  ErrorName.webhookEndpointGone,
  ErrorName.webhookEndpointDisabled,
  ErrorName.webhooksNotConfigured,
];

/**
 * One endpoint's deliveries: the pump activity delivers what is due (each intent's events in
 * order, a failed one after its backoff) and says when the next is due; between runs the
 * workflow waits on a timer, or for the sweep's word of new events. The workflow ends once the
 * endpoint is idle (the sweep starts it again) or stopped (gone, disabled). Temporal keeps the
 * pump alive: a worker that dies mid-run is noticed by the heartbeat and the run goes on
 * elsewhere. The workflow runs on the main queue (one set of workflow threads a process), its pump
 * on the webhooks queue, with slots of its own: payments never wait for a slow receiver.
 */
export async function webhookDelivery(input: WebhookDeliveryInput): Promise<void> {
  let told = false;
  setHandler(webhookEventsSignal, () => {
    told = true;
  });
  const { pumpWebhooks } = proxyActivities<RelayerActivities>({
    ...(input.pumpTaskQueue && { taskQueue: input.pumpTaskQueue }),
    // One batch of attempts takes at most the receiver's time: the heartbeat comes after each.
    heartbeatTimeout: input.attemptTimeoutMs + 10_000,
    startToCloseTimeout: '10m',
    retry: {
      initialInterval: '1s',
      backoffCoefficient: 2,
      maximumInterval: '1m',
      nonRetryableErrorTypes: laneStoppers,
    },
  });
  const pump = { endpointId: input.endpointId, retry: input.retry, concurrency: input.concurrency };
  for (let runs = 0; runs < runsPerWorkflow; runs++) {
    // Cleared before the run: word of events stored meanwhile wakes the next wait at once.
    told = false;
    let nextInMs: number | undefined;
    try {
      ({ nextInMs } = await pumpWebhooks(pump));
    } catch (error) {
      // Gone, disabled or unsigned: the endpoint's deliveries wait until it is enabled again,
      // unless it was meanwhile: the sweep's word of that came to this run, not to a next one.
      if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) {
        if (laneStoppers.includes(error.cause.type ?? '')) {
          if (told) continue;
          return;
        }
      }
      throw error;
    }
    if (nextInMs === 0) continue;
    const woken = await condition(() => told, nextInMs ?? idleMs);
    if (!woken && nextInMs === undefined) return;
  }
  await continueAsNew<typeof webhookDelivery>(input);
}
