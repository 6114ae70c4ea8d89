import { countsBetween, taskCountsOf } from '../../dev/bench/sdk-task-counts';

const page = (tasks: number, pumps: number) =>
  [
    '# HELP temporal_workflow_task_execution_latency Histogram of workflow task execution latencies',
    '# TYPE temporal_workflow_task_execution_latency histogram',
    `temporal_workflow_task_execution_latency_bucket{namespace="default",task_queue="relayer",workflow_type="finalitySweep",le="+Inf"} ${tasks}`,
    `temporal_workflow_task_execution_latency_sum{namespace="default",task_queue="relayer",workflow_type="finalitySweep"} 0.4`,
    `temporal_workflow_task_execution_latency_count{namespace="default",task_queue="relayer",workflow_type="finalitySweep"} ${tasks}`,
    'temporal_workflow_task_execution_latency_count{namespace="default",task_queue="relayer",workflow_type="paymentIntentV2"} 30',
    `temporal_activity_execution_latency_count{activity_type="pumpWebhooks",namespace="default",task_queue="relayer/webhooks",workflow_type="webhookDelivery"} ${pumps}`,
    'temporal_local_activity_execution_latency_count{activity_type="markSettling",namespace="default",task_queue="relayer",workflow_type="paymentIntentV2"} 10',
    'temporal_sticky_cache_miss_total{namespace="default",task_queue="relayer",workflow_type="paymentIntentV2"} 2',
    'temporal_sticky_cache_miss_total{namespace="default",task_queue="relayer",workflow_type="orphanSweep"} 1',
    'temporal_num_pollers{namespace="default",poller_type="workflow_task"} 5',
  ].join('\n');

describe("a worker's task counts from the SDK's Prometheus page", () => {
  it('counts tasks by workflow type, activities by activity type, and cache misses in all', () => {
    expect(Object.fromEntries(taskCountsOf(page(4, 7)))).toEqual({
      'workflow task finalitySweep': 4,
      'workflow task paymentIntentV2': 30,
      'activity pumpWebhooks': 7,
      'local activity markSettling': 10,
      'cache miss': 3,
    });
  });

  it('names what ran between two readings, most first, leaving out what did not', () => {
    expect(countsBetween(taskCountsOf(page(4, 7)), taskCountsOf(page(6, 12)))).toEqual({
      'activity pumpWebhooks': 5,
      'workflow task finalitySweep': 2,
    });
    expect(Object.keys(countsBetween(taskCountsOf(page(4, 7)), taskCountsOf(page(6, 12))))).toEqual(
      ['activity pumpWebhooks', 'workflow task finalitySweep'],
    );
  });
});
