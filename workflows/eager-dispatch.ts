import { workflowInfo, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import type { ActivityOptions, Priority } from '@temporalio/common';
import { isBulkPriority } from '../domain/intent-priority';

/**
 * A bulk workflow's activities never skip the task queue's matcher: eager dispatch (a worker
 * running an activity it schedules on its own queue at once) would put them before an urgent
 * payment's task waiting there. Urgent and normal keep it, which saves a round of matching.
 */
export const eagerDispatchOf = (
  priority: Priority | undefined,
  options: ActivityOptions,
): ActivityOptions =>
  isBulkPriority(priority) ? { ...options, allowEagerDispatch: false } : options;

/** Registered in every bundle (workers/workflow-code.ts) as a workflow interceptor module. */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  outbound: [
    {
      scheduleActivity: (input, next) =>
        next({ ...input, options: eagerDispatchOf(workflowInfo().priority, input.options) }),
    },
  ],
});
