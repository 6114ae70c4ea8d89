import { resolve } from 'node:path';
import { ensureTestServer } from './stack/temporal-binaries';
import { writeWorkflowBundle } from '../../workers/workflow-code';

export const testOutputDir = resolve(__dirname, '../../test-output');

/** Bundles workflows/ once per run; every worker in the suite loads this file. */
export default async function bundleWorkflows(): Promise<void> {
  const bundlePath = resolve(testOutputDir, 'workflow-bundle.js');
  await Promise.all([writeWorkflowBundle(bundlePath), ensureTestServer((m) => console.log(m))]);
  process.env.WORKFLOW_BUNDLE_PATH = bundlePath;
}
