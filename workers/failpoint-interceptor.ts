import type {
  ActivityExecuteInput,
  ActivityInboundCallsInterceptor,
  ActivityInterceptorsFactory,
  Next,
} from '@temporalio/worker';
import { activityInfo } from '@temporalio/activity';
import { crashPointAfter, type Failpoints } from '../activities/failpoints';

/**
 * Reaches an activity's crash point once its work is done but before Temporal hears of it: the
 * window in which a dead worker leaves a side effect the workflow does not know about, or a
 * panic turns a step that did its work into a failure to retry.
 */
export const failpointsAtActivityEnd =
  (failpoints: Failpoints): ActivityInterceptorsFactory =>
  () => ({
    inbound: {
      async execute(
        input: ActivityExecuteInput,
        next: Next<ActivityInboundCallsInterceptor, 'execute'>,
      ) {
        const result: unknown = await next(input);
        const point = crashPointAfter(activityInfo().activityType, result);
        if (point) failpoints.reach(point);
        return result;
      },
    },
  });
