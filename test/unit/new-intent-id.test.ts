import { intentIdPattern, newIntentId } from '../../operations/new-intent-id';

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
