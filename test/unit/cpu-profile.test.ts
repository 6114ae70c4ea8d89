import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { busySplitOfProfiles } from '../../dev/bench/cpu-profile';

const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({
  id,
  callFrame: { functionName, url },
  children,
});

describe("the bench's profile split", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cpu-profile-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('sorts samples by kind, puts all beneath the promise hook under it, and counts only the window', () => {
    const vmShared = 'file:///app/node_modules/@temporalio/worker/lib/workflow/vm-shared.js';
    // A workflow thread: entering the sandbox, the hook with a stack capture beneath it, code.
    writeFileSync(
      join(dir, 'CPU.20261202.080000.1.3.002.cpuprofile'),
      JSON.stringify({
        nodes: [
          frame(1, '(root)', '', [2, 3, 6]),
          frame(2, '(idle)', ''),
          frame(3, 'runInContext', '', [4, 5]),
          frame(4, 'init', vmShared, [7]),
          frame(5, 'settle', 'file:///tmp/workflow-bundle.js'),
          frame(6, '(garbage collector)', ''),
          frame(7, 'get stack', ''),
        ],
        startTime: 1000,
        // Each sample stands for the 1 ms before it; the window is 1,000–11,000 µs.
        samples: [3, 3, 7, 4, 5, 6, 2, 2, 5, 5, 5],
        timeDeltas: [1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
      }),
    );
    // The main thread: the SDK, the relayer, a library, Node.
    writeFileSync(
      join(dir, 'CPU.20261202.080000.1.0.001.cpuprofile'),
      JSON.stringify({
        nodes: [
          frame(1, '(root)', '', [2, 3, 4, 5]),
          frame(2, 'handleActivation', 'file:///app/node_modules/@temporalio/worker/lib/worker.js'),
          frame(3, 'hold', 'file:///app/activities/hold.ts'),
          frame(4, 'prepare', 'file:///app/node_modules/better-sqlite3/lib/methods/wrappers.js'),
          frame(5, 'writev', ''),
        ],
        startTime: 1000,
        samples: [2, 3, 3, 4, 5],
        timeDeltas: [1000, 1000, 1000, 1000, 1000],
      }),
    );
    expect(busySplitOfProfiles(dir, 2000, 11_000)).toEqual({
      sandboxEntry: 2,
      promiseHook: 2,
      workflowCode: 3,
      runtime: 2,
      sdk: 1,
      relayer: 2,
      libraries: 1,
    });
  });
});
