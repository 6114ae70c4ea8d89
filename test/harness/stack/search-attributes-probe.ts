import type { Client } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { intentSearchAttributes } from '../../../workflows/search-attributes';

/**
 * The frontend takes new search attributes on its namespace cache's next refresh: until then a
 * start naming one is refused ("no mapping defined for search attribute"). A probe workflow (no
 * worker runs it) started with every one of them, then terminated, says when.
 */
export async function untilSearchAttributesTaken(client: Client): Promise<void> {
  const labels = { status: 'authorized', tenantId: 'probe', chainId: 1, to: '0x0', amountWei: '0' };
  const attributes = intentSearchAttributes({ ...labels, from: '0x0', batchId: 'pb_probe' });
  for (const deadline = Date.now() + 60_000; ;) {
    try {
      const handle = await client.workflow.start('searchAttributesProbe', {
        taskQueue: 'search-attributes-probe',
        workflowId: `search-attributes-probe-${randomUUID()}`,
        typedSearchAttributes: attributes,
      });
      await handle.terminate('probe');
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
