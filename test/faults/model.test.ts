import { faultSettings } from '../harness/fault-settings';
import { ledgerModelRun, ledgerModelWorld } from '../harness/ledger-model-run';
import { useWorld } from '../harness/test-world';

const world = useWorld(ledgerModelWorld);

jest.setTimeout(900_000);

describe('model-based: random histories against an in-memory model of the ledger', () => {
  it('every run ends where the model says: balances, payments, duplicates, refusals', () =>
    ledgerModelRun(world, faultSettings('quick')));
});
