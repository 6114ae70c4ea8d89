import { Context } from '@temporalio/activity';
import type { ActivityDependencies } from './dependencies';

/**
 * Before a long wait (approval, review): the run may take the current build's code from its next
 * task on, so its own build's workers can retire while it waits (client/worker-versions.ts). A
 * process whose workers are unversioned has nothing to move: no call.
 */
export const allowUpgrade =
  ({ workflowVersions }: ActivityDependencies) =>
  async (): Promise<void> => {
    if (!workflowVersions) return;
    const { workflowExecution } = Context.current().info;
    if (workflowExecution) await workflowVersions.allowUpgrade(workflowExecution);
  };
