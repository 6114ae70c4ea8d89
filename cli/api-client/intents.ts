import type { IntentView } from '../../api/schemas/intents';
import { queryString, type ApiAnswer, type ApiTransport } from '../api-transport';
import type { AttemptView, SubmitBody } from '../api-views';

/** Intents: submit, read, cancel, review, approve (api/routes/intents.ts and review.ts). */
export const intentRoutes = {
  submit(
    this: ApiTransport,
    intent: SubmitBody,
    idempotencyKey: string,
  ): Promise<ApiAnswer<IntentView>> {
    return this.call('POST', '/v1/intents', {
      body: intent,
      headers: { 'idempotency-key': idempotencyKey },
    });
  },

  async get(this: ApiTransport, id: string): Promise<IntentView> {
    return (await this.call<IntentView>('GET', `/v1/intents/${encodeURIComponent(id)}`)).body;
  },

  async list(
    this: ApiTransport,
    query: {
      status?: string;
      tenantId?: string;
      limit?: number;
      cursor?: string;
      reference?: string;
      /** Each key must hold its value: `metadata[key]=value` in the query. */
      metadata?: Record<string, string>;
    } = {},
  ) {
    const { metadata, ...plain } = query;
    const keyed = Object.fromEntries(
      Object.entries(metadata ?? {}).map(([key, value]) => [`metadata[${key}]`, value]),
    );
    return (
      await this.call<{ intents: IntentView[]; nextCursor: string | null }>(
        'GET',
        `/v1/intents${queryString({ ...plain, ...keyed })}`,
      )
    ).body;
  },

  /** An ended intent's reference and metadata erased (an operator key with the redact scope). */
  async redact(this: ApiTransport, id: string, note?: string): Promise<IntentView> {
    const path = `/v1/intents/${encodeURIComponent(id)}/redact`;
    return (await this.call<IntentView>('POST', path, { body: note ? { note } : undefined })).body;
  },

  /** Unsigned: ends cancelled. Sent but not mined: answers `confirming`, the cancel sent. */
  async cancel(this: ApiTransport, id: string, note?: string): Promise<IntentView> {
    const path = `/v1/intents/${encodeURIComponent(id)}/cancel`;
    return (await this.call<IntentView>('POST', path, { body: note ? { note } : undefined })).body;
  },

  /** Sent but not mined: answers `confirming`, its replacement at a higher bid sent. */
  async speedUp(
    this: ApiTransport,
    id: string,
    body: { maxFeePerGas?: string; maxPriorityFeePerGas?: string; note?: string },
  ): Promise<IntentView> {
    const path = `/v1/intents/${encodeURIComponent(id)}/speed-up`;
    return (await this.call<IntentView>('POST', path, { body })).body;
  },

  async review(
    this: ApiTransport,
    id: string,
    action: 'confirm' | 'fail' | 'retry' | 'cancel',
    body: { txHash?: string; reason?: string; note?: string },
  ): Promise<IntentView> {
    const path = `/v1/intents/${encodeURIComponent(id)}/review/${action}`;
    return (await this.call<IntentView>('POST', path, { body })).body;
  },

  async attempts(this: ApiTransport, id: string): Promise<AttemptView[]> {
    const path = `/v1/intents/${encodeURIComponent(id)}/attempts`;
    return (await this.call<{ attempts: AttemptView[] }>('GET', path)).body.attempts;
  },

  async audit(this: ApiTransport, id: string) {
    const path = `/v1/intents/${encodeURIComponent(id)}/audit`;
    return (await this.call<{ entries: Record<string, unknown>[] }>('GET', path)).body.entries;
  },

  /** A second key's decision on an intent awaiting approval. */
  async decideApproval(
    this: ApiTransport,
    id: string,
    decision: 'approve' | 'reject',
    note?: string,
  ): Promise<IntentView> {
    const path = `/v1/intents/${encodeURIComponent(id)}/${decision}`;
    return (await this.call<IntentView>('POST', path, { body: note === undefined ? {} : { note } }))
      .body;
  },
};
