import type { ActivityOptions } from '@temporalio/common';
import { batchBodySchema } from '../../api/schemas/batches';
import { temporalPriorityOf } from '../../domain/intent-priority';
import { parseNewIntent } from '../../domain/intent-request';
import { eagerDispatchOf } from '../../workflows/eager-dispatch';

const request = {
  tenantId: 'acme',
  chainId: 1,
  to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  amount: '5',
};

describe('intent priorities', () => {
  it("map to Temporal's priority keys, urgent first, with the tenant as the fairness key", () => {
    expect(temporalPriorityOf({ priority: 'urgent', tenantId: 'acme' })).toEqual({
      priorityKey: 1,
      fairnessKey: 'acme',
    });
    expect(temporalPriorityOf({ tenantId: 'acme' }).priorityKey).toBe(3);
    expect(temporalPriorityOf({ priority: null, tenantId: 'acme' }).priorityKey).toBe(3);
    expect(temporalPriorityOf({ priority: 'bulk', tenantId: 'globex' })).toEqual({
      priorityKey: 5,
      fairnessKey: 'globex',
    });
    expect(temporalPriorityOf({ tenantId: 'acme' }, 2.5)).toMatchObject({ fairnessWeight: 2.5 });
  });

  it("keep a bulk workflow's activities off eager dispatch, and only a bulk one's", () => {
    const options: ActivityOptions = { startToCloseTimeout: 60_000 };
    const bulk = temporalPriorityOf({ priority: 'bulk', tenantId: 'acme' });
    expect(eagerDispatchOf(bulk, options)).toEqual({ ...options, allowEagerDispatch: false });
    for (const priority of ['urgent', 'normal'] as const) {
      expect(eagerDispatchOf(temporalPriorityOf({ priority, tenantId: 'acme' }), options)).toBe(
        options,
      );
    }
    expect(eagerDispatchOf(undefined, options)).toBe(options);
  });

  it('are taken by name on an intent, refused otherwise; a batch sets its items’ (bulk by default)', () => {
    expect(parseNewIntent({ ...request, priority: 'urgent' }).priority).toBe('urgent');
    expect(parseNewIntent(request).priority).toBeUndefined();
    expect(() => parseNewIntent({ ...request, priority: 'asap' })).toThrow(
      /priority: priority must be urgent, normal or bulk/,
    );
    const item = { chainId: 1, to: request.to, amount: '5' };
    expect(batchBodySchema.parse({ items: [item] }).priority).toBe('bulk');
    const own = batchBodySchema.safeParse({ items: [{ ...item, priority: 'urgent' }] });
    expect(own.error?.issues.map((issue) => issue.message)).toEqual([
      'a batch item takes no priority: set it on the batch, beside items',
    ]);
  });
});
