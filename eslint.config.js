const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const { builtinModules } = require('node:module');

/** What deterministic workflow code must never load: I/O, clocks of its own, the worker SDK. */
const sideEffects = [
  ...builtinModules,
  ...builtinModules.map((name) => `node:${name}`),
  'kysely',
  'pg',
  'better-sqlite3',
  'bottleneck',
  'ioredis',
  'viem',
  'viem/*',
  '@temporalio/worker',
  '@temporalio/client',
  '@temporalio/activity',
  '@temporalio/testing',
];

/** A doc comment right under another: the upper one documents nothing (left by an edit). */
const stackedDocBlocks = {
  meta: {
    type: 'problem',
    messages: { stacked: 'a doc comment stacked on another: the upper one documents nothing' },
  },
  create(context) {
    return {
      Program() {
        const docs = context.sourceCode
          .getAllComments()
          .filter((comment) => comment.type === 'Block' && comment.value.startsWith('*'));
        for (const [i, doc] of docs.entries()) {
          const below = docs[i + 1];
          if (below && below.loc.start.line === doc.loc.end.line + 1) {
            context.report({ loc: doc.loc, messageId: 'stacked' });
          }
        }
      },
    };
  },
};

/** Production code: every .ts outside test/ and dev/. */
const productionFiles = ['**/*.ts'];
const notProduction = ['test/**', 'dev/**'];

module.exports = tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test-output/**', '.relayer/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: __dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    files: productionFiles,
    ignores: notProduction,
    plugins: { relayer: { rules: { 'stacked-doc-blocks': stackedDocBlocks } } },
    rules: {
      // One concept per file: a file past 300 lines holds two.
      'max-lines': ['error', { max: 300 }],
      // A function past 80 lines does several things: cut it along them.
      'max-lines-per-function': [
        'error',
        { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true },
      ],
      // Prettier keeps code to 100 columns but leaves comments as written.
      'max-len': ['error', { code: 1000, comments: 100, ignoreUrls: true }],
      'relayer/stacked-doc-blocks': 'error',
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: sideEffects
            .filter((p) => !p.endsWith('*'))
            .map((name) => ({
              name,
              message: 'workflows must stay deterministic: side effects belong in activities',
              allowTypeImports: true,
            })),
          // Internal imports (activities only as types) are checked by .dependency-cruiser.js.
          patterns: [
            {
              group: ['viem/*'],
              message: 'workflows must stay deterministic: side effects belong in activities',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: sideEffects
            .filter((p) => !p.startsWith('viem'))
            .map((name) => ({ name, message: 'domain/ is pure: no I/O, no SDK runtime' })),
        },
      ],
    },
  },
  {
    files: ['*.js', 'test/*.js', 'test/harness/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        process: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
