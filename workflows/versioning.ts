import { setWorkflowOptions } from '@temporalio/workflow';
import { paymentIntent, paymentIntentV2 } from './payment-intent';
import { paymentBatch } from './payment-batch';
import { finalitySweep, orphanSweep, topUpSweep } from './sweeps';
import { webhookDelivery } from './webhook-delivery';

/**
 * Which build runs each workflow type's tasks once a newer one is current (Worker Deployment
 * Versioning; docs/operations.md, "Release a new build").
 *
 * A payment or top-up stays on the build that started it: one that goes straight through never
 * meets new code. Only its long waits (approval, review) move it to the current build, by an
 * override (the allowUpgrade step): code after those waits keeps its `patched()` branches.
 */
setWorkflowOptions({ versioningBehavior: 'PINNED' }, paymentIntent);
setWorkflowOptions({ versioningBehavior: 'PINNED' }, paymentIntentV2);

/*
 * A batch lives for hours across continue-as-new and a webhook delivery retries for hours: pinned,
 * either would keep an old build's workers up that long. They take the current build at each
 * task, so their code keeps `patched()` discipline. A sweep is a short, stateless pass.
 */
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, paymentBatch);
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, webhookDelivery);
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, orphanSweep);
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, finalitySweep);
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, topUpSweep);
