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

/**
 * Polls an intent until it ends, drawing its way along the happy path as a progress bar (on
 * stderr, so stdout stays the result).
 */
export async function watchIntent(
  api: RelayerApiClient,
  intentId: string,
  options: { timeoutMs: number; quiet: boolean },
): Promise<IntentView> {
  const bar = new SingleBar({
    format: '  {id} |{bar}| {status}',
    stream: process.stderr,
    noTTYOutput: true,
    notTTYSchedule: 2000,
    hideCursor: true,
  });
  if (!options.quiet) bar.start(stages.length - 1, 0, { id: intentId, status: 'authorized' });
  const deadline = Date.now() + options.timeoutMs;
  try {
    for (;;) {
      const intent = await api.get(intentId);
      const stage = stages.indexOf(intent.status);
      if (!options.quiet)
        bar.update(stage < 0 ? stages.length - 1 : stage, { status: intent.status });
      if (terminalStatuses.has(intent.status)) return intent;
      if (Date.now() > deadline) {
        throw new Error(`${intentId} still ${intent.status} after ${options.timeoutMs / 1000} s`);
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    if (!options.quiet) bar.stop();
  }
}
