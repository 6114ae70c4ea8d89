import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

// Subfolders keep the histories of earlier workflow shapes: those may still be running somewhere.
const dir = join(__dirname, 'histories');
const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) =>
  file.endsWith('.json'),
);

/**
 * What is recorded, folder by folder: a history or a folder lost (or added without its count)
 * fails here rather than leaving fewer shapes proven.
 */
const historiesPerFolder = {
  '.': 38,
  'before-intent-v2': 22,
  'before-lean-steps': 7,
  'before-upgrade-in-long-waits': 6,
  'before-webhooks-on-main-queue': 1,
};

/** Every workflow type new runs start has a history of its current shape. */
const currentWorkflowTypes = [
  'depositScan',
  'depositSweepV2',
  'depositUpkeep',
  'finalitySweep',
  'orphanSweep',
  'paymentBatch',
  'paymentIntentV2',
  'scheduledPayment',
  'topUpSweep',
  'walletTopUpV2',
  'webhookDelivery',
];

const historyOf = (file: string) =>
  historyFromJSON(JSON.parse(readFileSync(join(dir, file), 'utf8')));

describe('recorded workflow histories replay on the current workflow code', () => {
  it('has every recorded history, and one of each workflow type new runs start', () => {
    const perFolder: Record<string, number> = {};
    for (const file of files) perFolder[dirname(file)] = (perFolder[dirname(file)] ?? 0) + 1;
    expect(perFolder).toEqual(historiesPerFolder);
    const currentTypes = new Set(
      files
        .filter((file) => dirname(file) === '.')
        .map(
          (file) =>
            historyOf(file).events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType
              ?.name,
        ),
    );
    expect([...currentTypes].sort()).toEqual(currentWorkflowTypes);
  });

  it.each(files)('%s', async (file) => {
    await Worker.runReplayHistory(
      { workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! } },
      historyOf(file),
      file,
    );
  });
});
