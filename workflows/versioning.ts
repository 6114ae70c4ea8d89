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
 * Which build runs each workflow type's tasks once a newer one is current (docs/operations.md,
 * "Release a new build"); test/unit/workflow-versioning.test.ts fails on a type left out.
 * Payments are pinned (their long waits move them on: the allowUpgrade step); batches and
 * webhook deliveries live for hours and sweeps are short passes: they take the current build.
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
