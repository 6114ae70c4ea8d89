import { faultSettings } from '../harness/fault-settings';
import { ledgerModelRun, ledgerModelWorld } from '../harness/ledger-model-run';
import { useWorld } from '../harness/test-world';

const world = useWorld(ledgerModelWorld);

jest.setTimeout(1_800_000);

describe('model-based: more random histories against the model of the ledger (deep)', () => {
  it('every run ends where the model says: balances, payments, duplicates, refusals', () =>
    ledgerModelRun(world, faultSettings('deep')));
});
