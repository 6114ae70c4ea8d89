import { crashPointRun, crashPointWorld } from '../harness/crash-point-run';
import { faultSettings } from '../harness/fault-settings';
import { useWorld } from '../harness/test-world';

const world = useWorld(crashPointWorld);

jest.setTimeout(600_000);

describe('SIGKILL between a side effect and its report, at every crash point in turn', () => {
  // Each point is carried by one of the two processes at a time, so they die at different points
  // at once; the deep suite (test/deep) has both carry every point, over four times the intents.
  // The operator's and the schedules' points: crash-points-operator-actions.test.ts.
  it('restarted workers finish every intent: each paid at most once, the books balance', () =>
    crashPointRun(world, faultSettings('quick'), 'split'));
});
