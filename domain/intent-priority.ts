import type { Priority } from '@temporalio/common';

/**
 * How urgent a payment is: Temporal's task queues hand out an urgent one's tasks before a normal
 * one's, and a bulk one's last (a batch's items are bulk unless the batch says otherwise).
 */
export const IntentPriority = { urgent: 'urgent', normal: 'normal', bulk: 'bulk' } as const;
export type IntentPriority = (typeof IntentPriority)[keyof typeof IntentPriority];

export const intentPriorities = Object.values(IntentPriority);

/** Temporal's priority keys: 1 goes first; 3 is the server's default, where no key is given. */
export const priorityKeys: Record<IntentPriority, number> = { urgent: 1, normal: 3, bulk: 5 };

/** Whether a Temporal priority is a bulk one's (workflows/eager-dispatch.ts). */
export const isBulkPriority = (priority: Priority | undefined): boolean =>
  priority?.priorityKey === priorityKeys.bulk;

/** Temporal clamps fairness weights to this range; a weight outside it is refused, not clamped. */
export const fairnessWeightRange = { min: 0.001, max: 1000 } as const;

/**
 * A workflow's Temporal priority, inherited by its activities and children: its priority key,
 * and its tenant as the fairness key, so one tenant's backlog shares the queue with another's
 * single payment instead of standing in front of it, in proportion to the tenants' weights (the
 * server keeps none per key: each start carries its tenant's, unset being 1).
 */
export const temporalPriorityOf = (
  work: { priority?: IntentPriority | null; tenantId: string },
  fairnessWeight?: number,
): Priority => ({
  priorityKey: priorityKeys[work.priority ?? IntentPriority.normal],
  fairnessKey: work.tenantId,
  ...(fairnessWeight !== undefined && { fairnessWeight }),
});
