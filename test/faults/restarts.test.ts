import { faultSettings } from '../support/fault-settings';
import { restartRun, restartWorld } from '../support/restart-run';
import { useTestWorld } from '../support/test-world';

const suite = useTestWorld(restartWorld);

jest.setTimeout(400_000);

describe('the Temporal server restarted and the RPC endpoint down, mid-run', () => {
  it('workers ride through both: every intent confirmed once, the books balance', () =>
    restartRun(suite, faultSettings('quick')));
});
