/**
 * What a worker process ran, read from the Temporal SDK's Prometheus page (TEMPORAL_METRICS_PORT):
 * workflow tasks by workflow type, activities and local activities by activity type, and sticky
 * cache misses (a task that replayed its workflow's history from the start). Keys read
 * "workflow task paymentIntent", "activity pumpWebhooks", "local activity markSettling",
 * "cache miss"; each a count since the process started.
 */
export async function sdkTaskCounts(metricsUrl: string): Promise<Map<string, number>> {
  return taskCountsOf(
    await (await fetch(metricsUrl, { signal: AbortSignal.timeout(5000) })).text(),
  );
}

/** The counts of one Prometheus page of the SDK (see sdkTaskCounts). */
export function taskCountsOf(page: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of page.split('\n')) {
    const match = /^temporal_(\w+?)(?:_total)?(?:\{([^}]*)\})? (\S+)$/.exec(line);
    const counted = match && countedAs.get(match[1]!);
    if (!counted) continue;
    const [name, typeLabel] = counted;
    const type = typeLabel && new RegExp(`${typeLabel}="([^"]*)"`).exec(match[2] ?? '')?.[1];
    const key = type ? `${name} ${type}` : name;
    counts.set(key, (counts.get(key) ?? 0) + Number(match[3]));
  }
  return counts;
}

/**
 * The SDK's counters (a histogram's `_count` is one a task), what the report calls each, and the
 * label that names the task's type (an activity's metrics carry its workflow's type too).
 */
const countedAs = new Map<string, [name: string, typeLabel?: string]>([
  ['workflow_task_execution_latency_count', ['workflow task', 'workflow_type']],
  ['activity_execution_latency_count', ['activity', 'activity_type']],
  ['local_activity_execution_latency_count', ['local activity', 'activity_type']],
  ['sticky_cache_miss', ['cache miss']],
]);

/** What ran between two readings: each key that grew, by how much, most first. */
export function countsBetween(
  before: Map<string, number>,
  after: Map<string, number>,
): Record<string, number> {
  return Object.fromEntries(
    [...after]
      .map(([key, count]) => [key, count - (before.get(key) ?? 0)] as const)
      .filter(([, grown]) => grown > 0)
      .sort((a, b) => b[1] - a[1]),
  );
}
