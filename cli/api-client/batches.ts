import type { ApiAnswer, ApiTransport } from '../api-transport';
import type { BatchItemResultView, BatchView, SubmitBody } from '../api-views';

/** Batches: submit, read, results, cancel, approve (api/routes/batches.ts). */
export const batchRoutes = {
  submitBatch(
    this: ApiTransport,
    batch: {
      items: SubmitBody[];
      concurrency?: number;
      mode?: 'collect_all' | 'fail_fast';
      validUntil?: string;
      notBefore?: string;
      priority?: 'urgent' | 'normal' | 'bulk';
    },
    idempotencyKey: string,
  ): Promise<ApiAnswer<BatchView>> {
    return this.call('POST', '/v1/batches', {
      body: batch,
      headers: { 'idempotency-key': idempotencyKey },
    });
  },

  async getBatch(this: ApiTransport, id: string): Promise<BatchView> {
    return (await this.call<BatchView>('GET', `/v1/batches/${encodeURIComponent(id)}`)).body;
  },

  /** Every result, in input order, fetched a page at a time. */
  async batchResults(this: ApiTransport, id: string): Promise<BatchItemResultView[]> {
    const results: BatchItemResultView[] = [];
    let fromIndex: number | null = 0;
    while (fromIndex !== null) {
      const page: { results: BatchItemResultView[]; nextIndex: number | null } = (
        await this.call<{ results: BatchItemResultView[]; nextIndex: number | null }>(
          'GET',
          `/v1/batches/${encodeURIComponent(id)}/results?fromIndex=${fromIndex}&limit=1000`,
        )
      ).body;
      results.push(...page.results);
      fromIndex = page.nextIndex;
    }
    return results;
  },

  async cancelBatch(this: ApiTransport, id: string, reason?: string): Promise<BatchView> {
    const path = `/v1/batches/${encodeURIComponent(id)}/cancel`;
    return (await this.call<BatchView>('POST', path, { body: reason ? { reason } : {} })).body;
  },

  /** A second key's decision on a batch awaiting approval, once for all its items. */
  async decideBatchApproval(
    this: ApiTransport,
    id: string,
    decision: 'approve' | 'reject',
    note?: string,
  ): Promise<BatchView> {
    const path = `/v1/batches/${encodeURIComponent(id)}/${decision}`;
    return (await this.call<BatchView>('POST', path, { body: note === undefined ? {} : { note } }))
      .body;
  },
};
