import type { Database } from '../../store/database';
import { countIntentsByStatus } from '../../store/intents';
import { terminalStatuses, type IntentStatus } from '../../domain/intent';

export type StatusCounts = Partial<Record<IntentStatus, number>>;

export const settledCount = (counts: StatusCounts): number =>
  [...terminalStatuses].reduce((sum, status) => sum + (counts[status] ?? 0), 0);

/**
 * Polls the database until `count` intents have ended (confirmed, failed or needs_review), telling
 * `onProgress` what it sees; fails with the statuses it saw after `timeoutMs`.
 */
export async function waitUntilSettled(
  database: Database,
  count: number,
  options: {
    timeoutMs?: number;
    pollMs?: number;
    onProgress?: (counts: StatusCounts) => void;
  } = {},
): Promise<StatusCounts> {
  const deadline = Date.now() + (options.timeoutMs ?? Number.POSITIVE_INFINITY);
  for (;;) {
    const counts = await countIntentsByStatus(database.kysely);
    options.onProgress?.(counts);
    if (settledCount(counts) >= count) return counts;
    if (Date.now() > deadline) {
      throw new Error(
        `${count} intents not settled in ${options.timeoutMs} ms: ${JSON.stringify(counts)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 200));
  }
}
