import { DeliveryMargin } from '../../throttle/delivery-margin';
import { deliveryJitterMs } from '../../throttle/window-state';

describe('the delivery margin (measured per call, from its decision to its departure)', () => {
  const delayed = (margin: DeliveryMargin, ms: number) => margin.leaving(performance.now() - ms);

  it('is the assumed 25 ms until 20 decisions are measured, then their spread: 99th percentile less the least', () => {
    const margin = new DeliveryMargin();
    for (let i = 0; i < 19; i++) delayed(margin, 2);
    expect(margin.marginMs).toBe(deliveryJitterMs);
    for (let i = 0; i < 81; i++) delayed(margin, 2);
    delayed(margin, 40);
    // 101 delays, one of them 40: the 99th percentile is a 2, as the least (rounded up, + 1 ms).
    expect(margin.marginMs).toBeLessThanOrEqual(3);
    delayed(margin, 40);
    expect(margin.marginMs).toBeGreaterThanOrEqual(38);
    expect(margin.leastMs).toBeGreaterThanOrEqual(2);
    expect(margin.leastMs).toBeLessThan(3);
  });

  it('forgets delays older than the last 256', () => {
    const margin = new DeliveryMargin();
    for (let i = 0; i < 10; i++) delayed(margin, 100);
    for (let i = 0; i < 256; i++) delayed(margin, 1);
    expect(margin.marginMs).toBeLessThanOrEqual(3);
  });
});
