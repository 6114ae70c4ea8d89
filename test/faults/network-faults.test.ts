import { faultSettings } from '../harness/fault-settings';
import { networkChaosRun, networkChaosWorld } from '../harness/network-chaos-run';
import { useWorld } from '../harness/test-world';

const world = useWorld(networkChaosWorld);

jest.setTimeout(300_000);

describe('network faults on the worker ↔ node path (through the proxy)', () => {
  // A provider's quota on the same path: provider-quota.test.ts.
  it('seeded latency, resets, lost answers, timeouts and error answers: every intent ends, paid once', () =>
    networkChaosRun(world, faultSettings('quick')));
});
