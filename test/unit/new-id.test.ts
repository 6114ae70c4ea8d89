import { IdPrefix, intentIdPattern, newId, newIntentId } from '../../operations/new-id';

describe('newIntentId', () => {
  it('matches the documented pattern and sorts by creation time', () => {
    const earlier = newIntentId(Date.UTC(2026, 0, 1));
    const later = newIntentId(Date.UTC(2026, 0, 2));
    expect(earlier).toMatch(intentIdPattern);
    expect(later).toMatch(intentIdPattern);
    expect(earlier < later).toBe(true);
  });

  it('does not repeat', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newIntentId(0)));
    expect(ids.size).toBe(10_000);
  });
});

describe('newId', () => {
  it('gives each kind of record its prefix, the time part sorting the same way', () => {
    const at = Date.UTC(2026, 11, 7);
    const ids = Object.values(IdPrefix).map((prefix) => newId(prefix, at));
    expect(ids.map((id) => id.slice(0, 3))).toEqual(['pi_', 'pb_', 'ps_', 'pz_']);
    expect(new Set(ids.map((id) => id.slice(3, 13))).size).toBe(1);
    expect(newId(IdPrefix.batch, at) < newId(IdPrefix.batch, at + 1)).toBe(true);
  });
});
