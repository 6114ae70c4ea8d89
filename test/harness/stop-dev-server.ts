import type { TestWorkflowEnvironment } from '@temporalio/testing';

const shared = globalThis as { __devServer?: TestWorkflowEnvironment };

export default async function stopSharedDevServer(): Promise<void> {
  const server = shared.__devServer;
  shared.__devServer = undefined;
  await server?.teardown();
}
