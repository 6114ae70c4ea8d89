/**
 * The floor plan, checked by `npm run lint`: imports run one way, type-only imports included.
 *
 *   entry points (workers/, cli/relayer.ts, dev/)
 *     → api/, cli/ → service/ → client/ (Temporal client helpers) → workflows/ (definitions)
 *     → operations/ → store/, chain/, throttle/, webhooks/ → domain/
 *   activities/ → operations/ and the parts; workflows/ → domain/ and activity *types*.
 *
 * A room may import its own files and anything below it; nothing in production imports dev/.
 */

/** Each layer and the rooms (besides itself) it may import. */
const layers = {
  domain: [],
  store: ['domain'],
  chain: ['domain'],
  throttle: ['domain'],
  webhooks: ['domain'],
  operations: ['store', 'chain', 'throttle', 'webhooks', 'domain'],
  activities: ['operations', 'store', 'chain', 'throttle', 'webhooks', 'domain'],
  workflows: ['domain'],
  client: ['workflows', 'domain'],
  service: [
    'client',
    'workflows',
    'operations',
    'store',
    'chain',
    'throttle',
    'webhooks',
    'domain',
  ],
  api: ['service', 'domain'],
  cli: ['service', 'domain'],
};
const rooms = Object.keys(layers);
const production = [...rooms, 'workers'];

const layerRules = Object.entries(layers).map(([room, below]) => ({
  name: `${room}-imports-only-below`,
  comment: `${room}/ may import ${below.length ? below.join(', ') : 'nothing but itself'}`,
  severity: 'error',
  from: { path: `^${room}/` },
  to: {
    path: `^(${rooms.filter((other) => other !== room && !below.includes(other)).join('|')}|workers|dev|test)/`,
  },
}));

/** The suites of the dev workshop's own tools (bench, cluster, examples, generated docs). */
const devToolSuites = [
  'e2e/pool-drain',
  'integration/api-docs-examples',
  'unit/bench-medians',
  'unit/cluster-topology',
  'unit/cpu-profile',
  'unit/deposit-addresses',
  'unit/error-vocabulary',
  'unit/heap-growth',
  'unit/packing-bound',
  'unit/sdk-task-counts',
  'unit/throttle-example',
];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'an import circle, type-only imports included',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    // Workflows are deterministic: they see activities only as types.
    ...layerRules.filter((rule) => rule.name !== 'workflows-imports-only-below'),
    {
      name: 'workflows-imports-only-below',
      comment: 'workflows/ import domain/ and, as types only, activities/',
      severity: 'error',
      from: { path: '^workflows/' },
      to: {
        path: `^(${rooms.filter((r) => !['workflows', 'domain'].includes(r)).join('|')}|workers|dev|test)/`,
        pathNot: '^activities/',
      },
    },
    {
      name: 'workflows-see-activities-as-types',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { path: '^activities/', dependencyTypesNot: ['type-only'] },
    },
    // The CLI speaks the API's wire format: it may read the API's types, nothing else of it.
    {
      name: 'cli-reads-api-types-only',
      severity: 'error',
      from: { path: '^cli/' },
      to: { path: '^api/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'production-never-imports-dev',
      comment: 'the dev workshop (embedded stack, bench, examples, demo) is not shipped',
      severity: 'error',
      from: { path: `^(${production.join('|')})/` },
      to: { path: '^(dev|test)/' },
    },
    {
      name: 'harness-never-imports-dev',
      comment:
        'the test harness (test/harness: worlds and the stack) stands on its own; dev/ uses it',
      severity: 'error',
      from: { path: '^test/harness/' },
      to: { path: '^dev/' },
    },
    {
      name: 'tests-never-import-dev',
      comment:
        "a suite builds its world with test/harness; only the dev tools' own suites reach dev/",
      severity: 'error',
      from: { path: '^test/', pathNot: `^test/(${devToolSuites.join('|')})\\.test\\.ts$` },
      to: { path: '^dev/' },
    },
  ].map((rule) =>
    // The CLI may read the API's types (rule above); the layer rule would forbid them outright.
    rule.name === 'cli-imports-only-below'
      ? { ...rule, to: { ...rule.to, pathNot: '^api/' } }
      : rule,
  ),
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
