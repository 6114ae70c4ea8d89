import {
  deadlineRefusals,
  notBeforeHorizonMs,
  pastValidUntil,
} from '../../domain/intent-deadlines';
import { parseNewIntent } from '../../domain/intent-request';
import { timeFlag } from '../../cli/flags';

const now = new Date('2026-12-05T12:00:00Z');
const at = (offsetMs: number) => new Date(now.getTime() + offsetMs);
const request = {
  tenantId: 'acme',
  chainId: 1,
  to: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  amount: '1',
};

describe('intent deadlines', () => {
  it('parses ISO times with their offset into instants, and refuses one without', () => {
    const parsed = parseNewIntent({ ...request, validUntil: '2026-12-05T13:00:00+01:00' });
    expect(parsed.validUntil).toEqual(new Date('2026-12-05T12:00:00Z'));
    expect(() => parseNewIntent({ ...request, notBefore: '2026-12-05 13:00' })).toThrow(
      /notBefore must be an ISO 8601 time with its offset/,
    );
    expect(() => parseNewIntent({ ...request, validUntil: 1764936000000 })).toThrow(
      /validUntil must be a string/,
    );
  });

  it('refuses at admission a validUntil already past, a notBefore not before it, one too far out', () => {
    expect(deadlineRefusals({ validUntil: at(1) }, now)).toEqual([]);
    expect(deadlineRefusals({ validUntil: now }, now).map((r) => r.field)).toEqual(['validUntil']);
    expect(
      deadlineRefusals({ validUntil: at(1000), notBefore: at(1000) }, now).map((r) => r.field),
    ).toEqual(['notBefore']);
    expect(deadlineRefusals({ notBefore: at(notBeforeHorizonMs) }, now)).toEqual([]);
    expect(deadlineRefusals({ notBefore: at(notBeforeHorizonMs + 1) }, now)).toHaveLength(1);
  });

  it('is past its validUntil from that instant on; without one, never', () => {
    expect(pastValidUntil({ validUntil: at(1) }, now)).toBe(false);
    expect(pastValidUntil({ validUntil: now }, now)).toBe(true);
    expect(pastValidUntil({ validUntil: null }, now)).toBe(false);
    expect(pastValidUntil({}, now)).toBe(false);
  });

  it('takes a time on the command line as ISO or as a span from now, and names the flag otherwise', () => {
    const flag = timeFlag('--valid-until', () => now);
    expect(flag('30m')).toBe('2026-12-05T12:30:00.000Z');
    expect(flag('1d')).toBe('2026-12-06T12:00:00.000Z');
    expect(flag('2026-12-31T17:00:00Z')).toBe('2026-12-31T17:00:00Z');
    expect(() => flag('tomorrow')).toThrow(/--valid-until: a time with its offset/);
    expect(() => flag('2026-12-31T17:00:00')).toThrow(/--valid-until/);
    // A backfill's flags name past times: their spans count back from now.
    const ago = timeFlag('--from', () => now, { ago: true });
    expect(ago('1h')).toBe('2026-12-05T11:00:00.000Z');
    expect(() => ago('soon')).toThrow(/--from: .* or a span ago \(30m, 2h, 1d\)/);
  });
});
