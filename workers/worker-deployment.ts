import type { Client } from '@temporalio/client';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { deploymentRouting, makeCurrent, servesTaskQueue } from '../client/worker-versions';
import type { Rollout } from './config/versioning';

const registrationTimeoutMs = 30_000;

/**
 * Once the pool's workers poll (which registers their version), makes the version current as
 * WORKER_ROLLOUT says; says where it stands, for the start line. Builds starting together on an
 * empty deployment race by the routing's conflict token: one becomes current, the rest see it.
 */
export async function rollOutAtStart(
  client: Client,
  version: WorkerDeploymentVersion,
  taskQueue: string,
  rollout: Rollout,
): Promise<string> {
  const { deploymentName, buildId } = version;
  const deadline = Date.now() + registrationTimeoutMs;
  // The server refuses a registration only in its own log (e.g. past matching.maxDeployments).
  let lastProblem =
    "it did not appear; the server's log says why, e.g. a namespace's cap of deployments " +
    "(matching.maxDeployments) or a deployment's of versions (matching.maxVersionsInDeployment)";
  while (Date.now() < deadline) {
    try {
      const routing =
        (await servesTaskQueue(client, version, taskQueue)) &&
        (await deploymentRouting(client, deploymentName));
      if (routing) {
        const current = routing.currentBuildId;
        const takeOver =
          current !== buildId &&
          (rollout === 'at-start' || (rollout === 'when-first' && current === null));
        if (!takeOver) return described(version, current);
        await makeCurrent(client, version, routing.conflictToken ?? undefined);
        return described(version, buildId);
      }
    } catch (error) {
      lastProblem = (error as Error).message;
    }
    await sleep(250);
  }
  throw new Error(
    `Worker Deployment Versioning: build ${buildId} of deployment ${deploymentName} was not registered within ${registrationTimeoutMs / 1000} s (${lastProblem}); ` +
      'the server needs versioning (Temporal 1.28+, on by default from 1.29); WORKER_VERSIONING=off runs unversioned',
  );
}

function described({ deploymentName, buildId }: WorkerDeploymentVersion, current: string | null) {
  const at = `deployment ${deploymentName} build ${buildId}`;
  if (current === buildId) return `${at} (current)`;
  return (
    `${at} (not current: ${current === null ? 'none is' : `${current} is`}; ` +
    `temporal worker deployment set-current-version --deployment-name ${deploymentName} --build-id ${buildId})`
  );
}
