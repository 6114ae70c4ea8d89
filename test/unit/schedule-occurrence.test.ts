import { catchUpDeadline, decideOccurrenceRefusal } from '../../domain/schedule-occurrence';

const hour = 3_600_000;
const occurrenceAt = Date.parse('2026-12-01T09:00:00Z');

describe("a schedule's refused occurrence", () => {
  it('is tried again within its catch-up window when the refusal passes', () => {
    for (const refusal of [
      'Paused',
      'TenantLimitReached',
      'BacklogFull',
      'RelayerClosed',
    ] as const) {
      expect(
        decideOccurrenceRefusal({ refusal, now: occurrenceAt, deadline: occurrenceAt + hour }),
      ).toBe('retry');
    }
  });

  it('is missed once the window has ended', () => {
    const move = decideOccurrenceRefusal({
      refusal: 'Paused',
      now: occurrenceAt + hour,
      deadline: occurrenceAt + hour,
    });
    expect(move).toBe('missed');
  });

  it('is rejected for a refusal no wait cures, whatever the time', () => {
    for (const refusal of [
      'NoAccount',
      'PolicyViolation',
      'DeadlinePassed',
      'InsufficientBalance',
    ] as const) {
      expect(
        decideOccurrenceRefusal({ refusal, now: occurrenceAt, deadline: occurrenceAt + hour }),
      ).toBe('rejected');
    }
  });

  it('throws a fault of the moment back to the retry policy', () => {
    const move = decideOccurrenceRefusal({
      refusal: 'WorkflowUnanswered',
      now: occurrenceAt + 2 * hour,
      deadline: occurrenceAt + hour,
    });
    expect(move).toBe('throw');
  });

  it('counts the window from the occurrence, or from a backfill that started after it', () => {
    const window = { occurrenceAt, catchupWindow: hour };
    expect(catchUpDeadline({ ...window, runStartedAt: occurrenceAt + 1000 })).toBe(
      occurrenceAt + hour,
    );
    expect(catchUpDeadline({ ...window, runStartedAt: occurrenceAt + hour })).toBe(
      occurrenceAt + hour,
    );
    const backfilledAt = occurrenceAt + 5 * hour;
    expect(catchUpDeadline({ ...window, runStartedAt: backfilledAt })).toBe(backfilledAt + hour);
  });
});
