import { TimedOutError } from '../domain/errors';
import { SingleBar } from 'cli-progress';
import type { IntentView } from '../api/schemas/intents';
import type { RelayerApiClient } from './api-client';
import { terminalStatuses, type IntentStatus } from '../domain/intent';

const stages: IntentStatus[] = [
  'authorized',
  'settling',
  'held',
  'signed',
  'confirming',
  'confirmed',
];

/** How a status reads while waiting: an intent awaiting approval waits for a person. */
export const waitingWords = (intentId: string, status: IntentStatus): string =>
  status === 'awaiting_approval'
    ? `awaiting_approval: waits for a second key with the approve scope, not the one that submitted it (relayer approve ${intentId})`
    : status;

/**
 * Polls an intent until it ends (on stderr, so stdout stays the result): on a terminal a
 * progress bar along the happy path; elsewhere (a log, CI) a line each time its status changes.
 */
export async function watchIntent(
  api: RelayerApiClient,
  intentId: string,
  options: { timeoutMs: number; quiet: boolean; terminal?: boolean },
): Promise<IntentView> {
  const terminal = options.terminal ?? process.stderr.isTTY === true;
  const bar =
    options.quiet || !terminal
      ? undefined
      : new SingleBar({
          format: '  {id} |{bar}| {status}',
          stream: process.stderr,
          hideCursor: true,
        });
  bar?.start(stages.length - 1, 0, { id: intentId, status: 'authorized' });
  let shown: IntentStatus | undefined;
  const deadline = Date.now() + options.timeoutMs;
  try {
    for (;;) {
      const intent = await api.get(intentId);
      const stage = stages.indexOf(intent.status);
      const status = waitingWords(intentId, intent.status);
      bar?.update(stage < 0 ? stages.length - 1 : stage, { status });
      if (!bar && !options.quiet && intent.status !== shown) {
        process.stderr.write(`  ${intentId} ${status}\n`);
      }
      shown = intent.status;
      if (terminalStatuses.has(intent.status)) return intent;
      if (Date.now() > deadline) {
        throw new TimedOutError({
          what: `${intentId} still ${intent.status}`,
          afterMs: options.timeoutMs,
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    bar?.stop();
  }
}
