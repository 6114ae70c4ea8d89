import { countsBetween } from './sdk-task-counts';

/**
 * The Temporal server's persistence requests by operation (`persistence_requests` and, for
 * visibility, `visibility_persistence_requests`, summed over their other labels), read from its
 * Prometheus page; keys are "UpdateWorkflowExecution", "visibility RecordWorkflowExecutionStarted".
 */
export async function persistenceRequests(metricsUrl: string): Promise<Map<string, number>> {
  const text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(5000) })).text();
  const byOperation = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^(visibility_)?persistence_requests(?:_total)?\{([^}]*)\} (\S+)$/.exec(line);
    const operation = match && /operation="([^"]+)"/.exec(match[2]!)?.[1];
    if (!match || !operation) continue;
    const key = match[1] ? `visibility ${operation}` : operation;
    byOperation.set(key, (byOperation.get(key) ?? 0) + Number(match[3]));
  }
  return byOperation;
}

/** Requests per intent between two readings, by operation, largest first. */
export function requestsPerIntent(
  before: Map<string, number>,
  after: Map<string, number>,
  intents: number,
): Record<string, number> {
  return Object.fromEntries(
    Object.entries(countsBetween(before, after)).map(([operation, count]) => [
      operation,
      count / intents,
    ]),
  );
}
