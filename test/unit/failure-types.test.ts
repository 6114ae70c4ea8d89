import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { ErrorName, errorCatalogue } from '../../domain/error-catalogue';

const root = resolve(__dirname, '../..');
/** Production code: what the worker, the API and the CLI run (not tests, not the dev workshop). */
const productionDirectories = [
  'activities',
  'api',
  'chain',
  'cli',
  'client',
  'domain',
  'operations',
  'service',
  'store',
  'throttle',
  'webhooks',
  'workers',
  'workflows',
];

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Each `ApplicationFailure.create/nonRetryable/retryable(…)` call: its file and its text. */
function failureCalls(): { file: string; text: string }[] {
  return productionDirectories.flatMap((directory) =>
    sourceFiles(join(root, directory)).flatMap((path) => {
      const source = readFileSync(path, 'utf8');
      return [...source.matchAll(/ApplicationFailure\.(create|nonRetryable|retryable)\(/g)].map(
        (match) => {
          // The call's arguments: up to the parenthesis that closes it.
          let depth = 0;
          let end = match.index + match[0].length - 1;
          do {
            if (source[end] === '(') depth++;
            if (source[end] === ')') depth--;
            end++;
          } while (depth > 0);
          return { file: relative(root, path), text: source.slice(match.index, end) };
        },
      );
    }),
  );
}

/**
 * The failure's type as the call names it: `ErrorName.x`, a quoted name, or, in the interceptor
 * that turns a RelayerError into a failure, the error's own catalogue name.
 */
function typeOf({ file, text }: { file: string; text: string }): string | undefined {
  const named = /ErrorName\.(\w+)/.exec(text);
  if (named) return (ErrorName as Record<string, string>)[named[1]!] ?? `ErrorName.${named[1]}`;
  const quoted = /['"]([A-Z][A-Za-z]+)['"]/.exec(text);
  if (quoted) return quoted[1];
  if (file === 'workers/typed-failures.ts' && /type: error\.name/.test(text)) return 'RelayerError';
  return undefined;
}

describe('failure types', () => {
  const calls = failureCalls();

  it('finds the failures the workflows and the interceptor raise', () => {
    expect(calls.length).toBeGreaterThanOrEqual(7);
  });

  it.each(calls.map((call) => [`${call.file}: ${call.text.slice(0, 60)}`, call] as const))(
    '%s names a catalogued type',
    (_where, call) => {
      const type = typeOf(call);
      expect(type).toBeDefined();
      if (type !== 'RelayerError') expect(Object.keys(errorCatalogue)).toContain(type);
    },
  );
});
