import { faultSettings } from '../harness/fault-settings';
import { networkChaosRun, networkChaosWorld } from '../harness/network-chaos-run';
import { useWorld } from '../harness/test-world';

const world = useWorld(networkChaosWorld);

jest.setTimeout(600_000);

describe('network faults on the worker ↔ node path, more intents (deep)', () => {
  it('seeded latency, resets, lost answers, timeouts and error answers: every intent ends, paid once', () =>
    networkChaosRun(world, faultSettings('deep')));
});
