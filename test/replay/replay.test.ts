import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// Subfolders keep the histories of earlier workflow shapes: those may still be running somewhere.
const dir = join(__dirname, 'histories');
const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) =>
  file.endsWith('.json'),
);

describe('recorded workflow histories replay on the current workflow code', () => {
  it('has histories to replay', () => {
    expect(files.length).toBeGreaterThanOrEqual(3);
  });

  it.each(files)('%s', async (file) => {
    const history = historyFromJSON(JSON.parse(readFileSync(join(dir, file), 'utf8')));
    await Worker.runReplayHistory(
      { workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! } },
      history,
      file,
    );
  });
});
