/** Test layers (see README): each is a Jest project with the servers it needs. */
const transform = {
  '^.+\\.ts$': [
    '@swc/jest',
    { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
  ],
};

const plan = require('./test/tiers');
const { pairsOf } = require('./test/harness/tier-pairs');

/**
 * The run's tier (TEST_TIER, set by dev/run-tests.ts): each project runs that tier's files only,
 * and a project with none there is left out. Without one, every project runs all its files.
 */
const tier = process.env.TEST_TIER;
const pathsOf = (name, tierNames) =>
  tierNames.flatMap((tierName) =>
    pairsOf(plan, tierName).flatMap(({ project, file }) =>
      project === name ? [`<rootDir>/test/${file}.test.ts`] : [],
    ),
  );
const testMatchOf = (name) => {
  if (tier) return pathsOf(name, [tier]);
  const directory = plan.projectDirectories[name];
  return directory
    ? [`<rootDir>/test/${directory}/*.test.ts`]
    : pathsOf(name, Object.keys(plan.tiers));
};

const project = (name, extra = {}) => ({
  displayName: name,
  testEnvironment: 'node',
  transform,
  testMatch: testMatchOf(name),
  setupFiles: ['<rootDir>/test/harness/quiet-runtime.ts'],
  ...extra,
});

/** A project of the suites test/tiers.js names for it, on a real PostgreSQL server. */
const onPostgres = (name) =>
  project(name, {
    setupFiles: [
      '<rootDir>/test/harness/quiet-runtime.ts',
      '<rootDir>/test/harness/on-postgres.ts',
    ],
    globalSetup: '<rootDir>/test/harness/start-postgres-project.ts',
    globalTeardown: '<rootDir>/test/harness/stop-postgres-project.ts',
  });

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 60_000,
  // Three files at once in `npm test` on the 2-core machine: its files wait on blocks and servers
  // a third of the time (366 s with two, 272 s with three). The other tiers keep two: their quota
  // suites' workers, starved by a third file, sent bunched into one window of the provider's count.
  maxWorkers: tier === 'test' ? 3 : 2,
  testSequencer: '<rootDir>/test/harness/test-sequencer.js',
  reporters: ['default', '<rootDir>/test/harness/timings-reporter.js'],
  projects: [
    project('unit'),
    // Workflows with their activities faked at the factory seam, on the time-skipping server …
    project('workflow', {
      globalSetup: '<rootDir>/test/harness/bundle-workflows.ts',
    }),
    // … and batches on the dev server, where the time-skipping server leaks its time lock.
    project('workflow-dev-server', {
      globalSetup: '<rootDir>/test/harness/start-dev-server.ts',
      globalTeardown: '<rootDir>/test/harness/stop-dev-server.ts',
    }),
    project('integration', {
      globalSetup: '<rootDir>/test/harness/start-dev-server.ts',
      globalTeardown: '<rootDir>/test/harness/stop-dev-server.ts',
    }),
    project('e2e', {
      globalSetup: '<rootDir>/test/harness/start-dev-server.ts',
      globalTeardown: '<rootDir>/test/harness/stop-dev-server.ts',
    }),
    project('replay', { globalSetup: '<rootDir>/test/harness/bundle-workflows.ts' }),
    // Crashes, restarts, network faults and random histories, each checked against the ledger
    // invariants; sized by FAULT_INTENTS / FAULT_RUNS (see test/harness/fault-settings.ts).
    project('faults', {
      globalSetup: '<rootDir>/test/harness/start-dev-server.ts',
      globalTeardown: '<rootDir>/test/harness/stop-dev-server.ts',
    }),
    // The seeded suites again, larger (`npm run test:deep`; CI runs it, `npm test` does not).
    project('deep', {
      globalSetup: '<rootDir>/test/harness/start-dev-server.ts',
      globalTeardown: '<rootDir>/test/harness/stop-dev-server.ts',
    }),
    // A real browser (Debian's chromium) on the dev server's Web UI; starts its own stack.
    project('browser'),
    // The suites that touch the store, again on a real PostgreSQL server (one database per file).
    onPostgres('postgres'),
    onPostgres('postgres-deep'),
  ].filter((each) => each.testMatch.length > 0),
};
