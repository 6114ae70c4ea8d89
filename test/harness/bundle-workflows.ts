import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { resolve } from 'node:path';
import { ensureTestServer } from './stack/temporal-binaries';
import { writeWorkflowBundle } from '../../workers/workflow-code';

const root = resolve(__dirname, '../..');
export const testOutputDir = resolve(root, 'test-output');

/**
 * What a workflow bundle is built from, as one hash: every source file outside the tests and the
 * dev workshop, tracked or not yet (what webpack may follow from workflows/), the lockfile and
 * Node's version.
 */
function sourcesHash(): string {
  let listed: string;
  try {
    // Untracked files too: a workflow file not yet added must not leave a stale bundle in use.
    const args = ['ls-files', '-z', '--cached', '--others', '--exclude-standard'];
    listed = execFileSync('git', [...args, '--', '*.ts', 'package-lock.json'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    // Not a git checkout (an unpacked archive): nothing to know the sources by, so build anew.
    return `unknown-${process.pid}`;
  }
  const files = listed
    .split('\0')
    .filter((file) => file && !/^(test|dev)\//.test(file) && existsSync(resolve(root, file)));
  const hash = createHash('sha256').update(process.version);
  for (const file of files.sort()) hash.update(file).update(readFileSync(resolve(root, file)));
  return hash.digest('hex').slice(0, 16);
}

/**
 * Bundles workflows/ once per change of its sources, reused by later runs (test-output keeps it);
 * every worker in the suite loads this file.
 */
export default async function bundleWorkflows(): Promise<void> {
  const bundlePath = resolve(testOutputDir, `workflow-bundle-${sourcesHash()}.js`);
  const building = existsSync(bundlePath)
    ? Promise.resolve()
    : // Written aside and renamed: a run stopped halfway leaves no half a bundle under the name.
      writeWorkflowBundle(`${bundlePath}.part`).then(() =>
        renameSync(`${bundlePath}.part`, bundlePath),
      );
  await Promise.all([building, ensureTestServer((m) => console.log(m))]);
  process.env.WORKFLOW_BUNDLE_PATH = bundlePath;
}
