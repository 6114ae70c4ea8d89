import type { Context } from '@temporalio/activity';
import type { ActivityExecuteInput } from '@temporalio/worker';
import { Registry } from 'prom-client';
import { RpcUnavailableError, UnknownChainError } from '../../domain/errors';
import { RunStats } from '../../workers/run-stats';

/** One attempt of `activity` through the stats' interceptor, as the worker runs it. */
async function attempt(stats: RunStats, activity: string, outcome: () => Promise<unknown>) {
  const context = { info: { activityType: activity } } as unknown as Context;
  const { inbound } = stats.interceptor(context);
  await inbound!.execute!({} as ActivityExecuteInput, outcome).catch(() => undefined);
}

describe('the run statistics count each attempt by its outcome', () => {
  it('a retryable failure is a retry, a bug a panic, a refusal neither; a completed broadcast is a send', async () => {
    const stats = new RunStats(new Registry());
    const rpcDown = new RpcUnavailableError(1, 'unreachable', new Error('ECONNREFUSED'));
    await attempt(stats, 'broadcast', () => Promise.reject(rpcDown));
    await attempt(stats, 'confirm', () => Promise.reject(rpcDown));
    await attempt(stats, 'hold', () => Promise.reject(new TypeError('x is undefined')));
    await attempt(stats, 'markSettling', () => Promise.reject(new UnknownChainError(5)));
    await attempt(stats, 'broadcast', () => Promise.resolve({ txHash: '0xabc' }));
    // (A broadcast starts the stall monitor: its figure follows.)
    expect(stats.summary()).toMatch(
      /^sent 1, retry 2, abandoned 0, panics 1, longest stall \d+ ms$/,
    );
  });
});
