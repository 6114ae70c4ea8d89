import { packingBound } from '../../dev/bench/packing-bound';

describe('the most of a quota a rolling second lets a mix of calls use', () => {
  const onlySends = { sendUnits: 250, sendsPerIntent: 1, otherUnitsPerIntent: 0 };

  it('whole sends that divide the quota use all of it; a longer window uses its share', () => {
    expect(packingBound(1500, 1000, onlySends)).toBeCloseTo(1, 6);
    expect(packingBound(1500, 1025, onlySends)).toBeCloseTo(1000 / 1025, 6);
  });

  it("a sixth send never fits beside an eighth of reads: Alchemy's weights top out at 0.943", () => {
    // 283 units an intent (the bench's Q 1,500 cells): five sends and their reads fill 1,415.
    const alchemy = { sendUnits: 250, sendsPerIntent: 1, otherUnitsPerIntent: 33 };
    expect(packingBound(1500, 1000, alchemy)).toBeCloseTo((5 * 283) / 1500, 3);
    expect(packingBound(1500, 1025, alchemy)).toBeCloseTo((5 * 283) / 1500 / 1.025, 3);
  });

  it('reads that fill the sixth send’s room use the whole quota again', () => {
    const filling = { sendUnits: 250, sendsPerIntent: 1, otherUnitsPerIntent: 50 };
    expect(packingBound(1500, 1000, filling)).toBeCloseTo(1, 3);
  });
});
