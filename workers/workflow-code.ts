import { bundleWorkflowCode, DefaultLogger, type WorkerOptions } from '@temporalio/worker';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Resolved only when workflows are bundled from source: a compiled process has no sources. */
const workflowsPath = (): string => require.resolve('../workflows');

/**
 * Workers run the prebuilt bundle named by WORKFLOW_BUNDLE_PATH (`npm run build:workflow`; what
 * production images do), and otherwise bundle workflows/ from source at start. Only an explicit
 * path is trusted: a leftover bundle could silently run older workflow code.
 */
export function workflowCode(
  bundlePath = process.env.WORKFLOW_BUNDLE_PATH,
): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> {
  return bundlePath
    ? { workflowBundle: { codePath: bundlePath } }
    : { workflowsPath: workflowsPath() };
}

export async function writeWorkflowBundle(path: string, from = workflowsPath()): Promise<void> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: from,
    logger: new DefaultLogger('WARN'),
  });
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, code);
}
