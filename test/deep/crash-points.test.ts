import { crashPointRun, crashPointWorld } from '../harness/crash-point-run';
import { faultSettings } from '../harness/fault-settings';
import { useTestWorld } from '../harness/test-world';

const suite = useTestWorld(crashPointWorld);

jest.setTimeout(900_000);

describe('SIGKILL at every crash point, both processes carrying the plan (deep)', () => {
  it('restarted workers finish every intent: each paid at most once, the books balance', () =>
    crashPointRun(suite, faultSettings('deep'), 'shared'));
});
