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

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 60_000,
  projects: [
    project('unit'),
    project('workflow', { globalSetup: '<rootDir>/test/support/bundle-workflows.ts' }),
    project('integration', {
      globalSetup: '<rootDir>/test/support/start-dev-server.ts',
      globalTeardown: '<rootDir>/test/support/stop-dev-server.ts',
    }),
    project('e2e', {
      globalSetup: '<rootDir>/test/support/start-dev-server.ts',
      globalTeardown: '<rootDir>/test/support/stop-dev-server.ts',
    }),
    project('replay', { globalSetup: '<rootDir>/test/support/bundle-workflows.ts' }),
  ],
};
