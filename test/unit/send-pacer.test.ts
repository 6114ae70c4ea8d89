import { gcra, localSendPacer } from '../../throttle/send-pacer';

function pacerAt(pace: { perSecond: number; burst: number }) {
  let tat = 0;
  return (now: number) => {
    const decision = gcra(tat, now, pace);
    tat = decision.nextTat;
    return decision.waitMs;
  };
}

describe('send pacing (GCRA, decided at the moment of sending)', () => {
  // The pace runs 2% under the quota: one send per 204 ms at 5/s, per 102 ms at 10/s.
  it('with burst 1, lets one send through per 1/rate and says how long the others must wait', () => {
    const sendAt = pacerAt({ perSecond: 5, burst: 1 });
    expect(sendAt(1000)).toBe(0);
    expect(sendAt(1000)).toBe(204);
    expect(sendAt(1150)).toBe(54);
    // A refused send takes nothing: the next one that comes in time goes.
    expect(sendAt(1204)).toBe(0);
    expect(sendAt(1407)).toBe(1);
    expect(sendAt(1408)).toBe(0);
  });

  it('lets `burst` go back to back, then one per interval', () => {
    const sendAt = pacerAt({ perSecond: 10, burst: 3 });
    expect([0, 0, 0, 0].map(() => sendAt(5000))).toEqual([0, 0, 0, 102]);
    expect(sendAt(5102)).toBe(0);
  });

  it('never lets more than perSecond + burst − 1 sends through in any second', async () => {
    let clock = 0;
    const pacer = localSendPacer({ perSecond: 5, burst: 2 }, () => clock);
    const sent: number[] = [];
    for (clock = 0; clock < 10_000; clock += 37)
      if ((await pacer.reserve()) === 0) sent.push(clock);
    for (const start of sent) {
      expect(sent.filter((t) => t >= start && t < start + 1000).length).toBeLessThanOrEqual(6);
    }
    expect(sent.length).toBeGreaterThanOrEqual(50);
  });
});
