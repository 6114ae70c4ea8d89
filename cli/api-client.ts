import { ApiTransport, type ApiAnswer } from './api-transport';
import type { AttemptView, BatchItemResultView, BatchView, SubmitBody } from './api-views';
import type { TokenView, BalancesView } from '../api/schemas/assets';
import type { IntentView } from '../api/schemas/intents';
import type { WalletView } from '../api/schemas/wallets';
import type { WebhookDeliveryView, WebhookEndpointView } from '../api/schemas/webhooks';
import type {
  AllowedCallAnswerView,
  AllowedCallView,
  PolicyChangesView,
  PolicyRecipientView,
  PolicyView,
} from '../api/schemas/policies';

export { ApiError, type ApiAnswer } from './api-transport';
export type { AttemptView, BatchItemResultView, BatchView, SubmitBody } from './api-views';

/** The relayer's HTTP API for scripts and tests: one method per endpoint (ApiTransport's call). */
export class RelayerApiClient extends ApiTransport {
  submit(intent: SubmitBody, idempotencyKey: string): Promise<ApiAnswer<IntentView>> {
    return this.call('POST', '/v1/intents', {
      body: intent,
      headers: { 'idempotency-key': idempotencyKey },
    });
  }

  async get(id: string): Promise<IntentView> {
    return (await this.call<IntentView>('GET', `/v1/intents/${encodeURIComponent(id)}`)).body;
  }

  async list(query: { status?: string; tenantId?: string; limit?: number; cursor?: string } = {}) {
    const params = new URLSearchParams(
      Object.entries(query)
        .filter(([, value]) => value !== undefined)
        .map(([key, value]): [string, string] => [key, String(value)]),
    );
    const suffix = params.size > 0 ? `?${params}` : '';
    return (
      await this.call<{ intents: IntentView[]; nextCursor: string | null }>(
        'GET',
        `/v1/intents${suffix}`,
      )
    ).body;
  }

  /** Unsigned: ends cancelled. Sent but not mined: answers `confirming`, the cancel sent. */
  async cancel(id: string, note?: string): Promise<IntentView> {
    const path = `/v1/intents/${encodeURIComponent(id)}/cancel`;
    return (await this.call<IntentView>('POST', path, { body: note ? { note } : undefined })).body;
  }

  async review(
    id: string,
    action: 'confirm' | 'fail' | 'retry' | 'cancel',
    body: { txHash?: string; reason?: string; note?: string },
  ): Promise<IntentView> {
    const path = `/v1/intents/${encodeURIComponent(id)}/review/${action}`;
    return (await this.call<IntentView>('POST', path, { body })).body;
  }

  submitBatch(
    batch: { items: SubmitBody[]; concurrency?: number; mode?: 'collect_all' | 'fail_fast' },
    idempotencyKey: string,
  ): Promise<ApiAnswer<BatchView>> {
    return this.call('POST', '/v1/batches', {
      body: batch,
      headers: { 'idempotency-key': idempotencyKey },
    });
  }

  async getBatch(id: string): Promise<BatchView> {
    return (await this.call<BatchView>('GET', `/v1/batches/${encodeURIComponent(id)}`)).body;
  }

  /** Every result, in input order, fetched a page at a time. */
  async batchResults(id: string): Promise<BatchItemResultView[]> {
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
  }

  async cancelBatch(id: string, reason?: string): Promise<BatchView> {
    const path = `/v1/batches/${encodeURIComponent(id)}/cancel`;
    return (await this.call<BatchView>('POST', path, { body: reason ? { reason } : {} })).body;
  }

  /** A second key's decision on a batch awaiting approval, once for all its items. */
  async decideBatchApproval(
    id: string,
    decision: 'approve' | 'reject',
    note?: string,
  ): Promise<BatchView> {
    const path = `/v1/batches/${encodeURIComponent(id)}/${decision}`;
    return (await this.call<BatchView>('POST', path, { body: note === undefined ? {} : { note } }))
      .body;
  }

  async attempts(id: string): Promise<AttemptView[]> {
    const path = `/v1/intents/${encodeURIComponent(id)}/attempts`;
    return (await this.call<{ attempts: AttemptView[] }>('GET', path)).body.attempts;
  }

  async wallets(): Promise<WalletView[]> {
    return (await this.call<{ wallets: WalletView[] }>('GET', '/v1/wallets')).body.wallets;
  }

  async addWallet(address: string, signer: string): Promise<{ address: string; signer: string }> {
    return (
      await this.call<{ address: string; signer: string }>('POST', '/v1/wallets', {
        body: { address, signer },
      })
    ).body;
  }

  async retireWallet(chainId: number, address: string, retired: boolean): Promise<void> {
    const action = retired ? 'retire' : 'activate';
    await this.call('POST', `/v1/wallets/${chainId}/${encodeURIComponent(address)}/${action}`);
  }

  async setWalletPool(tenantId: string, chainId: number, wallets: string[] | null): Promise<void> {
    await this.call('PUT', `/v1/tenants/${encodeURIComponent(tenantId)}/wallets`, {
      body: { chainId, wallets },
    });
  }

  async balances(): Promise<BalancesView> {
    return (await this.call<BalancesView>('GET', '/v1/balances')).body;
  }

  async tokens(chainId?: number): Promise<TokenView[]> {
    const query = chainId === undefined ? '' : `?chainId=${chainId}`;
    return (await this.call<{ tokens: TokenView[] }>('GET', `/v1/assets${query}`)).body.tokens;
  }

  async registerToken(body: {
    chainId: number;
    address: string;
    alias?: string;
    feeOnTransfer?: boolean;
  }): Promise<TokenView & { probe: string }> {
    return (await this.call<TokenView & { probe: string }>('POST', '/v1/assets', { body })).body;
  }

  async webhookEndpoints(): Promise<WebhookEndpointView[]> {
    return (await this.call<{ endpoints: WebhookEndpointView[] }>('GET', '/v1/webhooks/endpoints'))
      .body.endpoints;
  }

  async addWebhookEndpoint(body: {
    url: string;
    eventTypes?: string[];
  }): Promise<WebhookEndpointView & { secret: string }> {
    return (
      await this.call<WebhookEndpointView & { secret: string }>('POST', '/v1/webhooks/endpoints', {
        body,
      })
    ).body;
  }

  async webhookEndpointAction(
    id: string,
    action: 'rotate-secret' | 'enable' | 'disable',
  ): Promise<Record<string, unknown>> {
    const path = `/v1/webhooks/endpoints/${encodeURIComponent(id)}/${action}`;
    return (await this.call<Record<string, unknown>>('POST', path)).body;
  }

  async webhookDeliveries(id: string, status?: string): Promise<WebhookDeliveryView[]> {
    const query = status ? `?status=${encodeURIComponent(status)}` : '';
    const path = `/v1/webhooks/endpoints/${encodeURIComponent(id)}/deliveries${query}`;
    return (await this.call<{ deliveries: WebhookDeliveryView[] }>('GET', path)).body.deliveries;
  }

  async redeliverWebhook(id: string, eventId: string): Promise<void> {
    const path = `/v1/webhooks/endpoints/${encodeURIComponent(id)}/deliveries/${encodeURIComponent(eventId)}/redeliver`;
    await this.call('POST', path);
  }

  async audit(id: string) {
    const path = `/v1/intents/${encodeURIComponent(id)}/audit`;
    return (await this.call<{ entries: Record<string, unknown>[] }>('GET', path)).body.entries;
  }

  /** A second key's decision on an intent awaiting approval. */
  async decideApproval(
    id: string,
    decision: 'approve' | 'reject',
    note?: string,
  ): Promise<IntentView> {
    const path = `/v1/intents/${encodeURIComponent(id)}/${decision}`;
    return (await this.call<IntentView>('POST', path, { body: note === undefined ? {} : { note } }))
      .body;
  }

  async policy(tenantId: string): Promise<PolicyView> {
    return (await this.call<PolicyView>('GET', `${tenantPath(tenantId)}/policy`)).body;
  }

  async policyChanges(tenantId: string, limit?: number): Promise<PolicyChangesView['changes']> {
    const query = limit === undefined ? '' : `?limit=${limit}`;
    const path = `${tenantPath(tenantId)}/policy/changes${query}`;
    return (await this.call<PolicyChangesView>('GET', path)).body.changes;
  }

  /** Amounts in base units; null removes a bound, absent leaves it. */
  async setPolicyLimits(
    tenantId: string,
    body: {
      chainId: number;
      asset?: string;
      maxPerIntent?: string | null;
      perDay?: string | null;
      perWeek?: string | null;
      approvalThreshold?: string | null;
    },
  ): Promise<PolicyView> {
    const path = `${tenantPath(tenantId)}/policy/limits`;
    return (await this.call<PolicyView>('PUT', path, { body })).body;
  }

  async setRecipientRule(
    tenantId: string,
    chainId: number,
    recipients: 'allow_list' | 'any',
  ): Promise<PolicyView> {
    const path = `${tenantPath(tenantId)}/policy/recipients`;
    return (await this.call<PolicyView>('PUT', path, { body: { chainId, recipients } })).body;
  }

  async recipients(tenantId: string, chainId?: number): Promise<PolicyRecipientView[]> {
    const query = chainId === undefined ? '' : `?chainId=${chainId}`;
    const path = `${tenantPath(tenantId)}/recipients${query}`;
    return (await this.call<{ recipients: PolicyRecipientView[] }>('GET', path)).body.recipients;
  }

  async addRecipient(tenantId: string, body: PolicyRecipientView): Promise<PolicyRecipientView> {
    const path = `${tenantPath(tenantId)}/recipients`;
    return (await this.call<PolicyRecipientView>('POST', path, { body })).body;
  }

  async removeRecipient(tenantId: string, chainId: number, address: string): Promise<void> {
    const path = `${tenantPath(tenantId)}/recipients/${chainId}/${encodeURIComponent(address)}`;
    await this.call('DELETE', path);
  }

  async allowedCalls(tenantId: string, chainId?: number): Promise<AllowedCallView[]> {
    const query = chainId === undefined ? '' : `?chainId=${chainId}`;
    const path = `${tenantPath(tenantId)}/contract-calls${query}`;
    return (await this.call<{ calls: AllowedCallView[] }>('GET', path)).body.calls;
  }

  async allowCall(
    tenantId: string,
    body: {
      chainId: number;
      contract: string;
      function: string;
      /** Wei; null: no bound; absent: the bound it had. */
      maxValue?: string | null;
      label: string;
      allowNoCode?: boolean;
    },
  ): Promise<AllowedCallAnswerView> {
    const path = `${tenantPath(tenantId)}/contract-calls`;
    return (await this.call<AllowedCallAnswerView>('POST', path, { body })).body;
  }

  async disallowCall(
    tenantId: string,
    call: { chainId: number; contract: string; function: string },
  ): Promise<void> {
    const path = `${tenantPath(tenantId)}/contract-calls/${call.chainId}/${encodeURIComponent(call.contract)}/${encodeURIComponent(call.function)}`;
    await this.call('DELETE', path);
  }
}

const tenantPath = (tenantId: string) => `/v1/tenants/${encodeURIComponent(tenantId)}`;
