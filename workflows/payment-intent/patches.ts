import { IntentStatus } from '../../domain/intent';

// The patches of paymentIntent, the type intents started before paymentIntentV2 run (which has
// every new branch and no patch to ask: shape.ts). When each came and when it can go:
// docs/workflow-versions.md.

/**
 * Recorded where needs_review waits for a decision; older runs ended there. Its old branch can
 * go once no run from before it is open.
 */
export const reviewWaitsPatch = 'review-waits-in-workflow';

/**
 * Recorded where the permit, settling and hold run inside the workflow's own task (local
 * activities), and the status is shown to visibility only where an operator filters on it.
 * Older runs took a task-queue round trip for each. The receipt looks stay activities: a look can
 * outlast what a local activity survives (docs/workflow-versions.md).
 */
export const localStepsPatch = 'lean-steps';

/**
 * Recorded where an intent waiting in review may have its lane freed by the relayer (the lane
 * rule, operations/abandoned-lane.ts); older runs waited for a person only. Its old branch can
 * go once no run from before it waits in review.
 */
export const laneRulePatch = 'lane-rule';

/**
 * Recorded where a run entering a long wait (approval, review) is moved off its pinned build
 * (the allowUpgrade step), in paymentIntentV2 too: its runs from before it never asked. Stays
 * while such runs are open; the code after these waits keeps its patches while any build runs
 * it (docs/operations.md, "Release a new build").
 */
export const upgradeInLongWaitsPatch = 'upgrade-in-long-waits';

/**
 * The statuses visibility shows under local steps: settling and held last milliseconds, so the
 * statuses around them are shown instead.
 */
export const statusesShownWithLocalSteps: ReadonlySet<IntentStatus> = new Set(
  Object.values(IntentStatus).filter(
    (status) => status !== IntentStatus.settling && status !== IntentStatus.held,
  ),
);
