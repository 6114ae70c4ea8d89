import type { VersioningBehavior, WorkflowDefinitionOptions } from '@temporalio/common';
import { setWorkflowOptions, workflowInfo } from '@temporalio/workflow';
import { paymentIntent, paymentIntentV2 } from './payment-intent';
import { paymentBatch } from './payment-batch';
import { depositScan, depositUpkeep, finalitySweep, orphanSweep, topUpSweep } from './sweeps';
import { scheduledPayment } from './scheduled-payment';
import { webhookDelivery } from './webhook-delivery';

/**
 * The behaviour, asked as the run starts on a worker: only a versioned worker may name one (the
 * server refuses it from an unversioned one: WORKER_VERSIONING=off, the webhooks queue's worker of
 * earlier runs). An unversioned worker's version has a build id but no deployment name.
 */
const whenVersioned = (versioningBehavior: VersioningBehavior) => (): WorkflowDefinitionOptions =>
  workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior } : {};

/**
 * Which build runs each workflow type's tasks once a newer one is current (Worker Deployment
 * Versioning; docs/operations.md, "Release a new build"). Every workflow type the worker registers
 * is here: test/unit/workflow-versioning.test.ts fails on one left out (it would run under the
 * worker's default, PINNED, whatever the docs say).
 *
 * A payment or top-up stays on the build that started it: one that goes straight through never
 * meets new code. Only its long waits (approval, review) move it to the current build, by an
 * override (the allowUpgrade step): code after those waits keeps its `patched()` branches.
 *
 * A batch lives for hours across continue-as-new and a webhook delivery retries for hours: pinned,
 * either would keep an old build's workers up that long. They take the current build at each
 * task, so their code keeps `patched()` discipline. A sweep, a deposit scan or upkeep, or a
 * schedule's occurrence, is a short, stateless pass.
 */
export const versioningBehaviours = new Map<
  (...args: never[]) => Promise<unknown>,
  VersioningBehavior
>([
  [paymentIntent, 'PINNED'],
  [paymentIntentV2, 'PINNED'],
  [paymentBatch, 'AUTO_UPGRADE'],
  [webhookDelivery, 'AUTO_UPGRADE'],
  [orphanSweep, 'AUTO_UPGRADE'],
  [finalitySweep, 'AUTO_UPGRADE'],
  [topUpSweep, 'AUTO_UPGRADE'],
  [depositScan, 'AUTO_UPGRADE'],
  [depositUpkeep, 'AUTO_UPGRADE'],
  [scheduledPayment, 'AUTO_UPGRADE'],
]);

for (const [workflow, behaviour] of versioningBehaviours) {
  setWorkflowOptions(whenVersioned(behaviour), workflow);
}
