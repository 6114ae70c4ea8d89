/**
 * Which run holds each (jest project, test file) pair: `npm test` the `test` tier, `npm run
 * test:ci` the `ci` tier, `npm run test:deep` the `deep` tier; CI runs all three. A file is named
 * by its path under test/ without `.test.ts`; `'*'` is every file of the project's directory.
 * test/unit/test-tiers.test.ts fails when a pair is in no tier or in two; docs/testing.md lists
 * every pair with its tier and its cost (`npm run docs:tests`).
 */
const tiers = {
  // Every capability proven once end to end on SQLite, the stores' contract on PostgreSQL, the
  // exactly-once core under a kill, a network fault, a restart and a drain, replay, time-skipping.
  test: {
    unit: '*',
    replay: '*',
    workflow: ['workflow/intent-timing', 'workflow/payment-intent', 'workflow/workflow-bundle'],
    'workflow-dev-server': [
      'workflow/dev-server/drain',
      'workflow/dev-server/priority-order',
      'workflow/dev-server/workflow-bugs',
    ],
    integration: [
      'integration/activities',
      'integration/admission',
      'integration/api',
      'integration/api-docs-examples',
      'integration/api-fuzz',
      'integration/api-scopes',
      'integration/approvals',
      'integration/batch',
      'integration/block-follower-fleet',
      'integration/caller-references',
      'integration/chain-reads-redis',
      'integration/chain-robustness',
      'integration/chain-view',
      'integration/contract-calls',
      'integration/database-restart',
      'integration/deposit-forwarders',
      'integration/deposit-sweeps',
      'integration/deposits',
      'integration/fee-ceiling',
      'integration/fee-families',
      'integration/finality',
      'integration/intent-deadlines',
      'integration/lane-rule',
      'integration/legacy-gas',
      'integration/migrations',
      'integration/pauses',
      'integration/payment-policy',
      'integration/payment-schedules',
      'integration/pool-slots',
      'integration/priorities',
      'integration/request-limits',
      'integration/review',
      'integration/rpc-error-table',
      'integration/speed-up',
      'integration/stranded-send',
      'integration/submit-intent',
      'integration/throttle-redis',
      'integration/token-policy',
      'integration/unmined-cancel',
      'integration/wallet-pools',
      'integration/wallet-turns',
    ],
    e2e: [
      'e2e/api-process',
      'e2e/cli',
      'e2e/deposit-trail',
      'e2e/deposits-cli',
      'e2e/fifty-intents',
      'e2e/finality-schedule',
      'e2e/rpc-failover',
      'e2e/tokens',
      'e2e/top-ups',
      'e2e/two-chains',
      'e2e/wallet-choice',
      'e2e/webhooks',
    ],
    faults: [
      'faults/activity-panics',
      'faults/crash-points',
      'faults/drain',
      'faults/duplicates-and-bad-input',
      'faults/network-faults',
      'faults/restarts',
    ],
    postgres: [
      'integration/activities',
      'integration/api',
      'integration/caller-references',
      'integration/deposits',
      'integration/finality',
      'integration/migrations',
      'integration/submit-intent',
      'integration/wallet-turns',
    ],
  },
  // What `npm test` leaves out: the rarer crash points, the flow suites on PostgreSQL, the CLI's
  // long tail, the signers, traces and the browser (their servers are built on first use).
  ci: {
    workflow: ['workflow/permit-reservations'],
    'workflow-dev-server': ['workflow/dev-server/payment-batch'],
    integration: [
      'integration/review-queue',
      'integration/stores-over-tls',
      'integration/unfunded-token-payout',
      'integration/worker-versioning',
    ],
    e2e: [
      'e2e/batch-crash',
      'e2e/cli-operations',
      'e2e/delayed-webhooks',
      'e2e/demo-walkthrough',
      'e2e/in-flight-limit',
      'e2e/kill-worker',
      'e2e/kms-signer',
      'e2e/pool-drain',
      'e2e/remote-signer',
      'e2e/shared-quota',
      'e2e/traces',
      'e2e/webhooks-recovery',
    ],
    faults: [
      'faults/crash-points-operator-actions',
      'faults/deposit-crash-points',
      'faults/model',
      'faults/provider-quota',
    ],
    browser: '*',
    // Not e2e/shared-quota: its quota lives in Redis, not the store, and its bound is on when sends
    // reach the node; two copies at once (six workers bursting on two cores) broke its window.
    postgres: [
      'e2e/deposit-trail',
      'e2e/fifty-intents',
      'integration/admission',
      'integration/api-scopes',
      'integration/deposit-sweeps',
      'integration/approvals',
      'integration/batch',
      'integration/contract-calls',
      'integration/fee-ceiling',
      'integration/intent-deadlines',
      'integration/pauses',
      'integration/payment-policy',
      'integration/payment-schedules',
      'integration/priorities',
      'integration/review',
      'integration/speed-up',
      'integration/stranded-send',
      'integration/token-policy',
    ],
  },
  // The seeded suites again, larger, and the suites whose PostgreSQL run proves again what their
  // SQLite run and the store suites prove (crash recovery, chain timeouts, sweeps).
  deep: {
    deep: '*',
    'postgres-deep': [
      'e2e/kill-worker',
      'e2e/top-ups',
      'faults/activity-panics',
      'integration/chain-robustness',
      'integration/review-queue',
      'integration/unfunded-token-payout',
      'integration/unmined-cancel',
      'integration/worker-versioning',
    ],
  },
};

/** The directory whose files a project's `'*'` means; projects without one list their files. */
const projectDirectories = {
  unit: 'unit',
  workflow: 'workflow',
  'workflow-dev-server': 'workflow/dev-server',
  integration: 'integration',
  e2e: 'e2e',
  replay: 'replay',
  faults: 'faults',
  deep: 'deep',
  browser: 'browser',
};

/** The ci tier also runs these projects, every file of them in any tier, on Node 24. */
const onNode24 = { tier: 'ci', projects: ['unit', 'integration'] };

module.exports = { tiers, projectDirectories, onNode24 };
