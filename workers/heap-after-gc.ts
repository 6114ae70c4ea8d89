import {
  constants,
  PerformanceObserver,
  type NodeGCPerformanceDetail,
  type PerformanceEntry,
} from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { Gauge, type Registry } from 'prom-client';

/**
 * The V8 heap in use just after the last full collection: what the process keeps alive. The heap
 * in use at a scrape is a sawtooth between collections, so a leak shows here and not there.
 * Returns the observer's disconnect.
 */
export function watchHeapAfterFullGc(metrics: Registry): () => void {
  const gauge = new Gauge({
    name: 'relayer_heap_after_full_gc_bytes',
    help: 'V8 heap in use right after the last full (mark-compact) collection',
    registers: [metrics],
  });
  const observer = new PerformanceObserver((list) => {
    // A gc entry carries its kind in `detail`, which Node's types leave off PerformanceEntry.
    const full = list
      .getEntries()
      .some(
        (entry: PerformanceEntry & { detail?: NodeGCPerformanceDetail }) =>
          entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR,
      );
    if (full) gauge.set(getHeapStatistics().used_heap_size);
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => observer.disconnect();
}
