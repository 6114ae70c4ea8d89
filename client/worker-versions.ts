import type { Client } from '@temporalio/client';
import type { WorkerDeploymentVersion } from '@temporalio/common';

/** Where a deployment's new runs go: its current version's build id, null when it has none. */
export interface DeploymentRouting {
  currentBuildId: string | null;
  conflictToken: Uint8Array | null;
}

/** The deployment's routing; null while no worker of it has polled yet. */
export async function deploymentRouting(
  client: Client,
  deploymentName: string,
): Promise<DeploymentRouting | null> {
  const { namespace } = client.options;
  try {
    const { workerDeploymentInfo: info, conflictToken } =
      await client.workflowService.describeWorkerDeployment({ namespace, deploymentName });
    return {
      currentBuildId: info?.routingConfig?.currentDeploymentVersion?.buildId ?? null,
      conflictToken: conflictToken ?? null,
    };
  } catch (error) {
    if ((error as { code?: number }).code === grpcNotFound) return null;
    throw error;
  }
}

const grpcNotFound = 5;

/**
 * Whether the version's workers have polled `taskQueue` for both workflow and activity tasks:
 * until then the server refuses to make it current (the queue would lose its workers).
 */
export async function servesTaskQueue(
  client: Client,
  version: WorkerDeploymentVersion,
  taskQueue: string,
): Promise<boolean> {
  try {
    const { workerDeploymentVersionInfo: info } =
      await client.workflowService.describeWorkerDeploymentVersion({
        namespace: client.options.namespace,
        deploymentVersion: version,
      });
    const types = new Set(
      (info?.taskQueueInfos ?? []).filter((q) => q.name === taskQueue).map((q) => q.type),
    );
    return types.size === 2;
  } catch (error) {
    if ((error as { code?: number }).code === grpcNotFound) return false;
    throw error;
  }
}

/**
 * Makes `version` the one new runs (and auto-upgrading ones) go to. With `ifUnchanged`, refused
 * (the server's error) when the routing changed since that token was read.
 */
export async function makeCurrent(
  client: Client,
  version: WorkerDeploymentVersion,
  ifUnchanged?: Uint8Array,
): Promise<void> {
  await client.workflowService.setWorkerDeploymentCurrentVersion({
    namespace: client.options.namespace,
    deploymentName: version.deploymentName,
    buildId: version.buildId,
    ...(ifUnchanged && { conflictToken: ifUnchanged }),
  });
}

/** The visibility query of the runs still open pinned to `version` (the CLI takes it too). */
export const pinnedRunsQuery = ({ deploymentName, buildId }: WorkerDeploymentVersion): string =>
  `TemporalWorkerDeploymentVersion = "${deploymentName}:${buildId}"` +
  ' AND TemporalWorkflowVersioningBehavior = "Pinned" AND ExecutionStatus = "Running"';

/** Pinned runs still open on `version`: its workers may retire when none is left. */
export async function countPinnedRuns(
  client: Client,
  version: WorkerDeploymentVersion,
): Promise<number> {
  return (await client.workflow.count(pinnedRunsQuery(version))).count;
}

/**
 * Lets a run take the current build's code from its next task on (an auto-upgrade override), as
 * its long waits do: its build's workers need not outlive it.
 */
export async function allowUpgrade(
  client: Client,
  execution: { workflowId: string; runId: string },
): Promise<void> {
  await client.workflowService.updateWorkflowExecutionOptions({
    namespace: client.options.namespace,
    workflowExecution: execution,
    workflowExecutionOptions: { versioningOverride: { autoUpgrade: true } },
    updateMask: { paths: ['versioning_override'] },
  });
}
