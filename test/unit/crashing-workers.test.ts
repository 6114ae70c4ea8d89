import { ExitedBeforeReadyError, type WorkerProcess } from '../harness/stack/worker-process';
import { CrashingWorkers } from '../harness/crashing-workers';

/** A worker that never ends on its own: the one the plan's last replacement becomes. */
const runningWorker = (): WorkerProcess => {
  let end: (exit: string) => void = () => undefined;
  const exited = new Promise<string>((done) => (end = done));
  return {
    child: undefined as never,
    output: () => 'worker w1: queue q',
    exited,
    signal: (signal) => end(signal),
  };
};

describe('CrashingWorkers', () => {
  it('counts a point reached while a replacement starts as a planned crash and replaces it', async () => {
    const spawned: Record<string, string>[] = [];
    const workers = new CrashingWorkers(
      async (env) => {
        spawned.push(env);
        if (spawned.length === 1)
          throw new ExitedBeforeReadyError(
            'workers/worker-main.ts',
            'SIGKILL',
            'crash point after-lease-moved reached (time 1): SIGKILL',
          );
        return runningWorker();
      },
      new Map([['after-lease-moved', 1]]),
      1,
    );
    await workers.start();
    await workers.stop();

    expect(workers.crashes.map((crash) => crash.point)).toEqual(['after-lease-moved']);
    expect(workers.unexpectedExits).toEqual([]);
    expect(spawned).toEqual([{ CRASH_AT: 'after-lease-moved@1' }, {}]);
  });

  it('reports a process that died before it was ready without reaching a point', async () => {
    const workers = new CrashingWorkers(
      async () => {
        throw new ExitedBeforeReadyError('workers/worker-main.ts', 1, 'DATABASE_URL: required');
      },
      new Map([['after-permit', 1]]),
      1,
    );
    await workers.start();
    await workers.stop();

    expect(workers.crashes).toEqual([]);
    expect(workers.unexpectedExits).toEqual(['worker exited with 1:\nDATABASE_URL: required']);
  });
});
