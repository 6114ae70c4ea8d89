import { scheduleSpecOf } from '../../client/payment-schedules';
import {
  occurrenceKey,
  scheduleBodySchema,
  spanOf,
  type ScheduleTiming,
} from '../../domain/payment-schedule';

const payment = { chainId: 1, to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', amount: '5' };
const timingOf = (fields: Partial<ScheduleTiming>): ScheduleTiming => ({
  timezone: 'UTC',
  catchupWindow: 3_600_000,
  ...fields,
});

describe('payment schedules', () => {
  it('take spans and a cron as a person writes them, with the defaults a payment wants', () => {
    const parsed = scheduleBodySchema.parse({ payment, every: '12h', validFor: '2d' });
    expect(parsed).toMatchObject({
      every: 12 * 3_600_000,
      validFor: 2 * 86_400_000,
      timezone: 'UTC',
      catchupWindow: 3_600_000,
      payment: { amount: 5n, asset: 'native' },
    });
    expect(scheduleBodySchema.parse({ payment, cron: '0 9 1,15 * 1-5' }).cron).toBe(
      '0 9 1,15 * 1-5',
    );
    expect([spanOf(86_400_000), spanOf(2 * 3_600_000), spanOf(90 * 60_000)]).toEqual([
      '1d',
      '2h',
      '90m',
    ]);
  });

  it('refuse what is wrong, each field named', () => {
    const problems = (body: Record<string, unknown>) => {
      const parsed = scheduleBodySchema.safeParse({ payment, ...body });
      return parsed.success
        ? []
        : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    };
    expect(problems({ every: '1d' })).toEqual([]);
    expect(problems({})).toEqual([expect.stringMatching(/^every: give every .* or cron/)]);
    expect(problems({ every: '0d' })[0]).toMatch(/^every: every must be a whole number/);
    expect(problems({ every: '1d', catchupWindow: '30s' })[0]).toMatch(/^catchupWindow:/);
    expect(problems({ cron: '61 * * * * *' })[0]).toMatch(/^cron: cron must be five fields/);
    expect(problems({ every: '1d', timezone: 'Europe/Atlantis' })[0]).toMatch(/^timezone:/);
    expect(problems({ every: '1d', payment: { ...payment, validUntil: 'x' } })[0]).toMatch(
      /^payment: Unrecognized key: "validUntil"/,
    );
    expect(problems({ every: '1d', surprise: 1 })[0]).toMatch(/surprise/);
  });

  it('count an interval from its start, and read a cron in its time zone', () => {
    const daily = scheduleSpecOf({
      timing: timingOf({ every: 86_400_000, startAt: '2027-01-01T09:30:00+01:00' }),
    });
    expect(daily.intervals).toEqual([{ every: 86_400_000, offset: 8.5 * 3_600_000 }]);
    expect(daily.startAt).toEqual(new Date('2027-01-01T08:30:00Z'));
    const monthly = scheduleSpecOf({
      timing: timingOf({ cron: '0 9 1 * *', timezone: 'Asia/Tokyo' }),
    });
    expect(monthly).toMatchObject({ cronExpressions: ['0 9 1 * *'], timezone: 'Asia/Tokyo' });
    expect(monthly.intervals).toBeUndefined();
  });

  it('name an occurrence by its schedule and time, the same however often it runs', () => {
    const at = new Date('2027-01-01T00:00:00Z');
    expect(occurrenceKey('ps_1', at)).toBe('schedule:ps_1:2027-01-01T00:00:00.000Z');
    expect(occurrenceKey('ps_1', new Date(at.getTime()))).toBe(occurrenceKey('ps_1', at));
  });
});
