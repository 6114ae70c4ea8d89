import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import * as plan from '../tiers';
import { pairsOf, testRoot, tierProblems } from '../harness/tier-pairs';

const onDisk = (file: string) => existsSync(resolve(testRoot, `${file}.test.ts`));

describe('the test tiers (test/tiers.js)', () => {
  it('hold every test file of every project in exactly one tier, and name only files that exist', () => {
    expect(tierProblems(plan, undefined, onDisk)).toEqual([]);
  });

  it('name a file in no tier, a pair in two tiers and a file that is not there', () => {
    const directories = { unit: 'unit', e2e: 'e2e' };
    const listed: Record<string, string[]> = { unit: ['unit/a', 'unit/b'], e2e: ['e2e/c'] };
    const broken = {
      projectDirectories: directories,
      tiers: {
        test: { unit: '*' as const, e2e: ['e2e/gone'] },
        ci: { unit: ['unit/b'], postgres: ['e2e/c'] },
      },
    };
    expect(
      tierProblems(
        broken,
        (directory) => listed[directory]!,
        (file) => file !== 'e2e/gone',
      ),
    ).toEqual([
      'e2e e2e/gone: no file test/e2e/gone.test.ts',
      'unit unit/b: in tiers test and ci',
      'e2e e2e/c: in no tier',
    ]);
  });

  it("puts in `npm test` the exactly-once core, replay, time-skipping and the stores' contract on PostgreSQL", () => {
    const fast = pairsOf(plan, 'test').map(({ project, file }) => `${project} ${file}`);
    expect(fast).toEqual(
      expect.arrayContaining([
        'faults faults/crash-points',
        'faults faults/network-faults',
        'faults faults/restarts',
        'faults faults/drain',
        'replay replay/replay',
        'workflow workflow/payment-intent',
        'postgres integration/migrations',
        'postgres integration/submit-intent',
      ]),
    );
  });
});
