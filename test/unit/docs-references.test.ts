import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { routeDocs } from '../../api/route-docs';

// The docs name files, routes and settings, and comments name files; each must exist, so neither
// drifts from the code unseen. What they name is read from the tracked files, as a clone has them.

const root = resolve(__dirname, '../..');
const tracked = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter(Boolean);
const docs = tracked.filter((file) => file.endsWith('.md') && !file.startsWith('test/'));
const text = (file: string) => readFileSync(join(root, file), 'utf8');

/** Folders a path in the docs may start with: the repository's own. */
const topFolders = [...new Set(tracked.filter((f) => f.includes('/')).map((f) => f.split('/')[0]))];
const pathPattern = new RegExp(`(?<![\\w/.-])((?:${topFolders.join('|')})/[\\w./-]*[\\w/])`, 'g');

/** What the bench and the docs scripts write, not committed. */
const generated = ['docs/bench/'];

function namedPaths(doc: string): string[] {
  const named = new Set<string>();
  for (const match of text(doc).matchAll(pathPattern)) {
    if (!generated.some((path) => match[1]!.startsWith(path))) named.add(match[1]!);
  }
  // Relative links: [x](chains.md#finality).
  for (const match of text(doc).matchAll(/\]\(([^)#:\s]+)(?:#[^)]*)?\)/g)) {
    named.add(join(dirname(doc), match[1]!));
  }
  return [...named];
}

describe("the docs and the code's comments name only what exists", () => {
  it('every file and folder they name', () => {
    const missing = docs.flatMap((doc) =>
      namedPaths(doc)
        .filter((path) => !existsSync(join(root, path.replace(/\/$/, ''))))
        .map((path) => `${doc}: ${path}`),
    );
    expect(missing).toEqual([]);
  });

  it('every file a comment in the code names by its path', () => {
    const code = tracked.filter(
      (file) => file.endsWith('.ts') && !file.startsWith('test/replay/histories/'),
    );
    const missing = code.flatMap((file) =>
      text(file)
        .split('\n')
        .filter((line) => /\/\/|^\s*\*/.test(line))
        .flatMap((line) => [...line.matchAll(/(?<![\w./-])([\w-]+(?:\/[\w.-]+)+\.ts)\b/g)])
        .map((match) => match[1]!)
        .filter(
          (path) => !existsSync(join(root, path)) && !existsSync(join(root, dirname(file), path)),
        )
        .map((path) => `${file}: ${path}`),
    );
    expect(missing).toEqual([]);
  });

  it('every route they name with its method', () => {
    // A route's `:param` matches any segment; docs name a route by its pattern or by example.
    const routes = [...Object.keys(routeDocs), 'GET /openapi.json'].map(
      (route) => new RegExp(`^${route.replace(/:\w+/g, '[^/]+')}$`),
    );
    const missing = docs.flatMap((doc) =>
      [...text(doc).matchAll(/\b(GET|POST|PUT|PATCH|DELETE) (\/[\w/:.<>-]*[\w>])/g)]
        .map((match) => `${match[1]} ${match[2]}`)
        .filter((route) => !routes.some((pattern) => pattern.test(route)))
        .map((route) => `${doc}: ${route}`),
    );
    expect(missing).toEqual([]);
  });

  it('every setting they name', () => {
    const code = tracked
      .filter((file) => /\.(ts|js|ya?ml|json|sh)$|Dockerfile|\.ci\//.test(file))
      .filter((file) => !file.startsWith('test/replay/histories/'))
      .map(text)
      .join('\n');
    const missing = docs.flatMap((doc) =>
      [
        ...new Set(
          [...text(doc).matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?:=[^`]*)?`/g)].map(
            (m) => m[1]!,
          ),
        ),
      ]
        // A secret setting may be given as a file: `<NAME>_FILE` (workers/config/secret-files.ts).
        .filter((name) => !code.includes(name.replace(/_FILE$/, '')))
        .map((name) => `${doc}: ${name}`),
    );
    expect(missing).toEqual([]);
  });
});
