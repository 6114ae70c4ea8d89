import { z } from 'zod';
import { onOff, optional, setting } from './parsers';

/** The rollout of a new build: when its workers' version becomes the one new runs start on. */
export const rollouts = ['when-first', 'at-start', 'manual'] as const;
export type Rollout = (typeof rollouts)[number];

/**
 * Worker Deployment Versioning: the pool's workers poll as one version of a deployment, and a
 * payment runs on the build that started it (docs/operations.md, "Release a new build").
 */
export const versioningSettings = {
  workerVersioning: setting({
    env: 'WORKER_VERSIONING',
    fallback: 'on',
    doc: "Worker Deployment Versioning on or off (off: every worker takes any run's tasks, as before 1.28 servers)",
    parse: onOff,
  }),
  workerDeploymentName: setting({
    env: 'WORKER_DEPLOYMENT_NAME',
    fallback: '',
    doc: "The Worker Deployment the workers belong to (default: the task queue's name)",
    parse: optional(
      z.string().regex(/^[A-Za-z0-9_-]+$/, { error: 'must be letters, digits, "_" or "-"' }),
    ),
  }),
  workerBuildId: setting({
    env: 'WORKER_BUILD_ID',
    fallback: '',
    doc: "This build's id within the deployment (the image sets it; default: a digest of the workflow bundle)",
    parse: optional(
      z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, {
        error: 'must be 1 to 64 letters, digits, ".", "_" or "-"',
      }),
    ),
  }),
  workerRollout: setting({
    env: 'WORKER_ROLLOUT',
    fallback: 'when-first',
    doc: '`when-first`: this build becomes current only if the deployment has none; `at-start`: as soon as its workers poll; `manual`: only by `temporal worker deployment set-current-version`',
    parse: z.enum(rollouts, { error: `must be one of ${rollouts.join(', ')}` }),
  }),
};
