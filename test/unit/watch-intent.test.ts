import type { IntentView } from '../../api/schemas/intents';
import type { RelayerApiClient } from '../../cli/api-client';
import { watchIntent } from '../../cli/watch-intent';

/** An API whose intent goes through `statuses`, one a poll (the last one stays). */
const apiThrough = (statuses: string[]) => {
  let poll = 0;
  return {
    get: async () =>
      ({ id: 'pi_1', status: statuses[Math.min(poll++, statuses.length - 1)] }) as IntentView,
  } as unknown as RelayerApiClient;
};

describe('following an intent with --wait off a terminal', () => {
  it('prints a line when its status changes, not a line a poll, and says whose approval it waits for', async () => {
    const written: string[] = [];
    const write = jest
      .spyOn(process.stderr, 'write')
      .mockImplementation((chunk: string | Uint8Array) => written.push(String(chunk)) > 0);
    try {
      const statuses = ['awaiting_approval', 'awaiting_approval', 'confirming', 'confirmed'];
      const ended = await watchIntent(apiThrough(statuses), 'pi_1', {
        timeoutMs: 60_000,
        quiet: false,
        terminal: false,
      });
      expect(ended.status).toBe('confirmed');
    } finally {
      write.mockRestore();
    }
    expect(written).toEqual([
      '  pi_1 awaiting_approval: waits for a second key with the approve scope, not the one that submitted it (relayer approve pi_1)\n',
      '  pi_1 confirming\n',
      '  pi_1 confirmed\n',
    ]);
  });
});
