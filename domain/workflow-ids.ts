/**
 * Workflow ids are derived from the intent id, so starting an intent twice finds the first run,
 * and a person reading the Web UI sees which intent a workflow is.
 */
export const paymentIntentWorkflowId = (intentId: string): string => `payment-intent-${intentId}`;
