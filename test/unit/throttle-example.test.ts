import { runThrottleExample } from '../../dev/examples/throttle';

describe("examples/throttle (the seed's Example_throttle)", () => {
  it('grants four acquisitions at 2/s, burst 1, about t+0, 0.5 s, 1 s, 1.5 s — never early', async () => {
    const { grantedAt } = await runThrottleExample();
    expect(grantedAt).toHaveLength(4);
    grantedAt.forEach((at, i) => {
      expect(at).toBeGreaterThanOrEqual(i * 500);
      expect(at).toBeLessThan(i * 500 + 300);
    });
  });
});
