/**
 * One name, four queues. The main queue carries workflow tasks and the steps that do work (its
 * activity slots are the pool). Permit waits go to the throttle queue, served with a wide pool
 * that only waits. Releases go to the queue of the very process that holds the permit. Webhook
 * attempts have a queue (and slots) of their own: a slow receiver never holds a payment up.
 */
export const throttleTaskQueue = (taskQueue: string): string => `${taskQueue}.throttle`;

export const permitReleaseTaskQueue = (taskQueue: string, processId: string): string =>
  `${taskQueue}.permits@${processId}`;

export const webhookTaskQueue = (taskQueue: string): string => `${taskQueue}.webhooks`;
