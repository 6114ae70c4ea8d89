import { patched } from '@temporalio/workflow';
import {
  laneRulePatch,
  localStepsPatch,
  reviewWaitsPatch,
  upgradeInLongWaitsPatch,
} from './patches';

/** What one intent workflow type does differently from the other. */
export interface IntentShape {
  /** The permit, settling and hold run inside the workflow's own task (local activities). */
  readonly localSteps: boolean;
  /** needs_review waits in the run for a decision (older runs ended there). */
  reviewWaits(): boolean;
  /** While in review, the relayer may free an abandoned lane itself. */
  laneRule(): boolean;
  /** A long wait (approval, review) first moves the run off its pinned build. */
  upgradeInLongWaits(): boolean;
}

/** Both types ask it: runs of either were open before it. */
const upgradeInLongWaits = () => patched(upgradeInLongWaitsPatch);

/** paymentIntentV2's: every earlier patch's new branch, and no marker to say so. */
export const currentShape: IntentShape = {
  localSteps: true,
  reviewWaits: () => true,
  laneRule: () => true,
  upgradeInLongWaits,
};

/**
 * paymentIntent's: each decision asked of its patch, as its history recorded it (a new run would
 * record the marker): local steps at the run's start, the review's where the run first meets them.
 */
export const patchedShape = (): IntentShape => ({
  localSteps: patched(localStepsPatch),
  reviewWaits: () => patched(reviewWaitsPatch),
  laneRule: () => patched(laneRulePatch),
  upgradeInLongWaits,
});
