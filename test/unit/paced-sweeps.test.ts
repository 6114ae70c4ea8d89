import { pacedSweeps } from '../../workers/paced-sweeps';

/** Sweeps at fake times: each finds what `found` says for it (by its index), or fails. */
function sweepsFinding(found: (index: number) => number | Error) {
  const at: number[] = [];
  const sweep = async () => {
    const index = at.length;
    at.push(Date.now());
    const result = found(index);
    if (result instanceof Error) throw result;
    return result;
  };
  return { at, sweep };
}

/** The gaps between sweeps, in ms. */
const gaps = (at: number[]) => at.slice(1).map((time, i) => time - at[i]!);

describe('pacedSweeps', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  it('with nothing found, the gap doubles from everyMs up to longestGapMs', async () => {
    const { at, sweep } = sweepsFinding(() => 0);
    const sweeps = pacedSweeps(sweep, { everyMs: 500, longestGapMs: 5000 });
    await jest.advanceTimersByTimeAsync(30_000);
    await sweeps.stop();
    expect(at[0]).toBe(500);
    expect(gaps(at).slice(0, 6)).toEqual([1000, 2000, 4000, 5000, 5000, 5000]);
  });

  it('keeps everyMs while sweeps find work, and after a failed one keeps its gap', async () => {
    const { at, sweep } = sweepsFinding((index) =>
      index === 3 ? new Error('database away') : index < 5 ? 1 : 0,
    );
    const sweeps = pacedSweeps(sweep, { everyMs: 500, longestGapMs: 5000 });
    await jest.advanceTimersByTimeAsync(4000);
    await sweeps.stop();
    expect(gaps(at).slice(0, 6)).toEqual([500, 500, 500, 500, 500, 1000]);
  });

  it('a nudge brings an idle wait back to everyMs after the last sweep, never closer', async () => {
    const { at, sweep } = sweepsFinding(() => 0);
    const sweeps = pacedSweeps(sweep, { everyMs: 500, longestGapMs: 5000 });
    // Sweeps at 0.5, 1.5, 3.5, 7.5, 12.5 and 17.5 s, the next planned at 22.5: nudged at 17.6 s,
    // it comes at 18 s.
    await jest.advanceTimersByTimeAsync(17_600);
    const last = at.at(-1)!;
    expect(last).toBe(17_500);
    sweeps.nudge();
    sweeps.nudge();
    await jest.advanceTimersByTimeAsync(1000);
    expect(at.filter((time) => time > last)).toEqual([last + 500]);
    await sweeps.stop();
  });

  it('a nudge during a sweep makes the next one come everyMs later', async () => {
    let finish: (found: number) => void = () => undefined;
    const at: number[] = [];
    const sweeps = pacedSweeps(
      () => {
        at.push(Date.now());
        return new Promise<number>((resolve) => (finish = resolve));
      },
      { everyMs: 500, longestGapMs: 5000 },
    );
    await jest.advanceTimersByTimeAsync(500);
    sweeps.nudge();
    await jest.advanceTimersByTimeAsync(300);
    finish(0);
    await jest.advanceTimersByTimeAsync(500);
    expect(at).toEqual([500, 1300]);
    finish(0);
    await sweeps.stop();
  });

  it('stops: no sweep after stop, and stop waits for the one under way', async () => {
    let finish: (found: number) => void = () => undefined;
    let ended = false;
    const at: number[] = [];
    const sweeps = pacedSweeps(
      () => {
        at.push(Date.now());
        return new Promise<number>((resolve) => (finish = resolve)).finally(() => (ended = true));
      },
      { everyMs: 500, longestGapMs: 5000 },
    );
    await jest.advanceTimersByTimeAsync(500);
    const stopped = sweeps.stop();
    sweeps.nudge();
    finish(1);
    await stopped;
    expect(ended).toBe(true);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(at).toEqual([500]);
  });
});
