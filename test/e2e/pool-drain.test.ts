import { runPoolDrain } from '../../dev/examples/pool-drain';

const address = () => process.env.TEMPORAL_TEST_ADDRESS!;

// Each run waits for its own steps (sends in flight: 30 s at most, the rest: 120 s at most).
jest.setTimeout(180_000);

describe("examples/pool-drain (the seed's Example_poolDrain)", () => {
  it('stop while 2 sends are in flight: sent 2, retry 0, abandoned 0, panics 0; 4 untouched; the next worker finishes', async () => {
    const report = await runPoolDrain('graceful', address());
    expect(report.firstWorker).toEqual({ sent: 2, retry: 0, abandoned: 0, panics: 0 });
    expect(report.inFlightAtStop).toHaveLength(2);

    const sent = report.afterStop.filter((r) => report.inFlightAtStop.includes(r.id));
    const waiting = report.afterStop.filter((r) => !report.inFlightAtStop.includes(r.id));
    expect(sent.map((r) => r.status)).toEqual(['confirming', 'confirming']);
    // Never touched: first version, no transaction, no hold — nothing past the throttle ran.
    expect(waiting.map((r) => [r.status, r.version, r.txHash])).toEqual(
      Array(4).fill(['authorized', 1, null]),
    );
    expect(report.holdsAfterStop).toBe(2);
    expect(report.minedAfterStop).toBe(2);

    expect(report.secondWorker).toMatchObject({ sent: 4, abandoned: 0, panics: 0 });
    expect(report.final.map((r) => r.status)).toEqual(Array(6).fill('confirmed'));
    expect(Object.values(report.minedPerIntent)).toEqual(Array(6).fill(1));
  });

  it('a send slower than the drain timeout is abandoned, counted, and later completed with exactly one tx', async () => {
    const report = await runPoolDrain('drain-timeout', address());
    expect(report.firstWorker).toEqual({ sent: 0, retry: 0, abandoned: 2, panics: 0 });
    const abandoned = report.afterStop.filter((r) => report.inFlightAtStop.includes(r.id));
    // The signed bytes were persisted before the send: the outcome is unknown, not lost.
    expect(abandoned.map((r) => r.status)).toEqual(['signed', 'signed']);
    expect(abandoned.every((r) => r.txHash !== null)).toBe(true);
    expect(report.afterStop.filter((r) => r.status === 'authorized')).toHaveLength(4);

    expect(report.secondWorker).toMatchObject({ abandoned: 0, panics: 0 });
    expect(report.final.map((r) => r.status)).toEqual(Array(6).fill('confirmed'));
    for (const row of abandoned) {
      expect(report.final.find((r) => r.id === row.id)?.txHash).toBe(row.txHash);
    }
    expect(Object.values(report.minedPerIntent)).toEqual(Array(6).fill(1));
  });
});
