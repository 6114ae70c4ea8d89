import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { format, resolveConfig } from 'prettier';
import * as plan from '../test/tiers';
import { pairsOf } from '../test/harness/tier-pairs';

/**
 * `npm run docs:tests [-- timings.json]`: takes the pairs' times of the last runs (test-output/pair-timings.json,
 * written by every jest run) into test/timings.json, which orders a fresh clone's files slowest
 * first, and rewrites docs/testing.md's table of every (project, file) pair with its tier and
 * cost. Run it after `npm test`, `npm run test:ci` and `npm run test:deep`.
 */
interface PairTiming {
  seconds: number;
  tests: number;
  status?: string;
}

const root = resolve(__dirname, '..');
const committedFile = resolve(root, 'test', 'timings.json');
/** The runs' times: test-output/pair-timings.json, or the file named on the command line. */
const measuredFile = resolve(process.argv[2] ?? resolve(root, 'test-output', 'pair-timings.json'));
const docsFile = resolve(root, 'docs', 'testing.md');
const [start, end] = ['<!-- tier table: npm run docs:tests -->', '<!-- end of tier table -->'];

const readTimings = (file: string): Record<string, PairTiming> =>
  existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, PairTiming>) : {};

async function main(): Promise<void> {
  // A failed file's time says nothing about what it costs when it passes.
  const measured = Object.fromEntries(
    Object.entries(readTimings(measuredFile)).filter(([, timing]) => timing.status !== 'failed'),
  );
  const merged = { ...readTimings(committedFile), ...measured };
  const tiers = Object.keys(plan.tiers);
  const pairs = tiers.flatMap((tier) =>
    pairsOf(plan, tier).map(({ project, file }) => ({ tier, project, file })),
  );
  const known = new Set(pairs.map(({ project, file }) => `${project} ${file}`));
  const timings = Object.fromEntries(
    Object.entries(merged)
      .filter(([pair]) => known.has(pair))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([pair, { seconds, tests }]) => [pair, { seconds, tests }]),
  );
  await writeFormatted(committedFile, JSON.stringify(timings, null, 2));

  const cost = (project: string, file: string) => timings[`${project} ${file}`];
  const totals = tiers.map((tier) => {
    const own = pairs.filter((pair) => pair.tier === tier);
    const sum = (key: 'seconds' | 'tests') =>
      own.reduce((total, { project, file }) => total + (cost(project, file)?.[key] ?? 0), 0);
    return { tier, pairs: own.length, seconds: sum('seconds'), tests: sum('tests') };
  });
  const lines = [
    start,
    '',
    '| tier | pairs | tests | seconds (the files summed) |',
    '| ---- | ----: | ----: | --------------------------------------: |',
    ...totals.map((t) => `| ${t.tier} | ${t.pairs} | ${t.tests} | ${t.seconds.toFixed(0)} |`),
    '',
    '| tier | project | file | tests | seconds |',
    '| ---- | ------- | ---- | ----: | ------: |',
    ...pairs.map(({ tier, project, file }) => {
      const timing = cost(project, file);
      return `| ${tier} | ${project} | \`${file}\` | ${timing?.tests ?? '?'} | ${timing ? timing.seconds.toFixed(1) : '?'} |`;
    }),
    '',
    end,
  ];
  const docs = readFileSync(docsFile, 'utf8');
  const [before, after] = [docs.indexOf(start), docs.indexOf(end)];
  if (before < 0 || after < 0) throw new Error(`docs/testing.md has no "${start}" … "${end}"`);
  await writeFormatted(
    docsFile,
    docs.slice(0, before) + lines.join('\n') + docs.slice(after + end.length),
  );
  const unmeasured = pairs.filter(({ project, file }) => !cost(project, file)).length;
  console.log(
    `docs/testing.md: ${pairs.length} pairs in ${tiers.length} tiers` +
      (unmeasured > 0 ? `, ${unmeasured} without a time yet (run their tier)` : ''),
  );
}

async function writeFormatted(file: string, text: string): Promise<void> {
  const options = (await resolveConfig(file)) ?? {};
  writeFileSync(file, await format(text, { ...options, filepath: file }));
}

void main();
