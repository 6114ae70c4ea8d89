import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

const root = resolve(__dirname, '../../..');

/** The entry points test suites start as processes of their own. */
const entryPoints = ['workers/worker-main.ts', 'workers/api-main.ts', 'cli/relayer.ts'];

/** Where compiled entry points are, once compileEntryPoints ran in this process or a parent. */
const compiledDirVariable = 'RELAYER_COMPILED_ENTRIES_DIR';

/**
 * Compiles the entry points once (our TypeScript into one CommonJS file each, packages left to
 * node_modules as in production) and has every later process start them from there. A process
 * started through the tsx loader spends about 1.3 s more CPU before it is ready (3.8 s against
 * 2.6 s on the 2-core CI machine): the loader's hooks and its transforms of ~200 modules, per
 * process — and the suites start about a hundred.
 */
export async function compileEntryPoints(outDir: string): Promise<void> {
  await buildEntryPoints(outDir, entryPoints);
  process.env[compiledDirVariable] = outDir;
}

/**
 * `entries` (paths from the project's root) compiled into `outDir`, for the processes of one
 * caller only (the bench's compiled cells): pass the directory to nodeArgumentsFor.
 */
export async function buildEntryPoints(outDir: string, entries: readonly string[]): Promise<void> {
  await build({
    entryPoints: entries.map((entry) => resolve(root, entry)),
    outdir: outDir,
    outbase: root,
    bundle: true,
    packages: 'external',
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    logLevel: 'error',
  });
}

/**
 * Node's arguments that run `script` (a path from the project's root): its compiled file when
 * compileEntryPoints (or buildEntryPoints into `compiledDir`) made one, else the source through
 * the tsx loader.
 */
export function nodeArgumentsFor(
  script: string,
  compiledDir = process.env[compiledDirVariable],
): string[] {
  const compiled = compiledDir && resolve(compiledDir, script.replace(/\.ts$/, '.js'));
  if (compiled && existsSync(compiled)) return [compiled];
  return ['--import', 'tsx', script];
}
