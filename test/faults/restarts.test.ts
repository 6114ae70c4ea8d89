import { faultSettings } from '../harness/fault-settings';
import { restartRun, restartWorld } from '../harness/restart-run';
import { useWorld } from '../harness/test-world';

const world = useWorld(restartWorld);

jest.setTimeout(400_000);

describe('the Temporal server restarted and the RPC endpoint down, mid-run', () => {
  it('workers ride through both: every intent confirmed once, the books balance', () =>
    restartRun(world, faultSettings('quick')));
});
