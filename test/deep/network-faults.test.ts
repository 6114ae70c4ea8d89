import { faultSettings } from '../harness/fault-settings';
import { networkChaosRun, networkChaosWorld } from '../harness/network-chaos-run';
import { useTestWorld } from '../harness/test-world';

const suite = useTestWorld(networkChaosWorld);

jest.setTimeout(600_000);

describe('network faults on the worker ↔ node path, more intents (deep)', () => {
  it('seeded latency, resets, lost answers, timeouts and error answers: every intent ends, paid once', () =>
    networkChaosRun(suite, faultSettings('deep')));
});
