import { crashPointRun, crashPointWorld } from '../harness/crash-point-run';
import { faultSettings } from '../harness/fault-settings';
import { useWorld } from '../harness/test-world';

const world = useWorld(crashPointWorld);

jest.setTimeout(900_000);

describe('SIGKILL at every crash point, both processes carrying the plan (deep)', () => {
  it('restarted workers finish every intent: each paid at most once, the books balance', () =>
    crashPointRun(world, faultSettings('deep'), 'shared'));
});
