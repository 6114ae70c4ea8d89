/** Test layers (see README): each is a Jest project with the servers it needs. */
const transform = {
  '^.+\\.ts$': [
    '@swc/jest',
    { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
  ],
};

const project = (name, extra = {}) => ({
  displayName: name,
  testEnvironment: 'node',
  transform,
  testMatch: [`<rootDir>/test/${name}/**/*.test.ts`],
  setupFiles: ['<rootDir>/test/support/quiet-runtime.ts'],
  ...extra,
});

// Not e2e/shared-quota: its quota lives in Redis, not the store, and its bound is on when sends
// reach the node — two copies of it at once (six workers bursting on two cores) delayed sends
// past the window's margin and failed both (10 and 7 sends in a second against 6).
const postgresSuites = [
  'integration/activities',
  'integration/admission',
  'integration/api',
  'integration/api-scopes',
  'integration/batch',
  'integration/finality',
  'integration/migrations',
  'integration/review',
  'integration/submit-intent',
  'integration/approvals',
  'integration/intent-deadlines',
  'integration/pauses',
  'integration/payment-schedules',
  'integration/priorities',
  'integration/payment-policy',
  'integration/contract-calls',
  'integration/wallet-turns',
  'integration/deposits',
  'integration/stranded-send',
  'e2e/deposit-trail',
  'e2e/fifty-intents',
];

/**
 * Suites whose PostgreSQL run proves again what their SQLite run and the store suites above prove
 * (crash recovery, chain timeouts, sweeps): `npm run test:deep` runs them on PostgreSQL, not
 * `npm test`.
 */
const deepPostgresSuites = [
  'integration/chain-robustness',
  'integration/review-queue',
  'integration/unmined-cancel',
  'integration/worker-versioning',
  'e2e/kill-worker',
  'e2e/top-ups',
  'faults/activity-panics',
  'integration/unfunded-token-payout',
];

/** A project of `suites` on a real PostgreSQL server (one database per file). */
const onPostgres = (name, suites) =>
  project(name, {
    testMatch: suites.map((suite) => `<rootDir>/test/${suite}.test.ts`),
    setupFiles: [
      '<rootDir>/test/support/quiet-runtime.ts',
      '<rootDir>/test/support/on-postgres.ts',
    ],
    globalSetup: '<rootDir>/test/support/start-postgres-project.ts',
    globalTeardown: '<rootDir>/test/support/stop-postgres-project.ts',
  });

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 60_000,
  // Two files at once on the 2-core CI machine: the suites' processes keep both cores busy. Three
  // finish ~15% sooner but starve the quota suites' workers: sends a second late arrive bunched
  // into one window of the provider's count (issue 29's reservations address that).
  maxWorkers: 2,
  testSequencer: '<rootDir>/test/support/test-sequencer.js',
  projects: [
    project('unit'),
    // Workflows with their activities faked at the factory seam, on the time-skipping server …
    project('workflow', {
      testMatch: ['<rootDir>/test/workflow/*.test.ts'],
      globalSetup: '<rootDir>/test/support/bundle-workflows.ts',
    }),
    // … and batches on the dev server, where the time-skipping server leaks its time lock.
    project('workflow-dev-server', {
      testMatch: ['<rootDir>/test/workflow/dev-server/*.test.ts'],
      globalSetup: '<rootDir>/test/support/start-dev-server.ts',
      globalTeardown: '<rootDir>/test/support/stop-dev-server.ts',
    }),
    project('integration', {
      globalSetup: '<rootDir>/test/support/start-dev-server.ts',
      globalTeardown: '<rootDir>/test/support/stop-dev-server.ts',
    }),
    project('e2e', {
      globalSetup: '<rootDir>/test/support/start-dev-server.ts',
      globalTeardown: '<rootDir>/test/support/stop-dev-server.ts',
    }),
    project('replay', { globalSetup: '<rootDir>/test/support/bundle-workflows.ts' }),
    // Crashes, restarts, network faults and random histories, each checked against the ledger
    // invariants; sized by FAULT_INTENTS / FAULT_RUNS (see test/support/fault-settings.ts).
    project('faults', {
      globalSetup: '<rootDir>/test/support/start-dev-server.ts',
      globalTeardown: '<rootDir>/test/support/stop-dev-server.ts',
    }),
    // The seeded suites again, larger (`npm run test:deep`; CI runs it, `npm test` does not).
    project('deep', {
      globalSetup: '<rootDir>/test/support/start-dev-server.ts',
      globalTeardown: '<rootDir>/test/support/stop-dev-server.ts',
    }),
    // A real browser (Debian's chromium) on the dev server's Web UI; starts its own stack.
    project('browser'),
    // The suites that touch the store, again on a real PostgreSQL server (one database per file).
    onPostgres('postgres', postgresSuites),
    onPostgres('postgres-deep', deepPostgresSuites),
  ],
};
