import type {
  AllowedCallAnswerView,
  AllowedCallView,
  PolicyChangesView,
  PolicyRecipientView,
  PolicyView,
} from '../../api/schemas/policies';
import { queryString, type ApiTransport } from '../api-transport';

const tenantPath = (tenantId: string) => `/v1/tenants/${encodeURIComponent(tenantId)}`;

/** A tenant's payment policy: limits, recipients, allowed calls (api/routes/policies.ts). */
export const policyRoutes = {
  async policy(this: ApiTransport, tenantId: string): Promise<PolicyView> {
    return (await this.call<PolicyView>('GET', `${tenantPath(tenantId)}/policy`)).body;
  },

  async policyChanges(
    this: ApiTransport,
    tenantId: string,
    limit?: number,
  ): Promise<PolicyChangesView['changes']> {
    const path = `${tenantPath(tenantId)}/policy/changes${queryString({ limit })}`;
    return (await this.call<PolicyChangesView>('GET', path)).body.changes;
  },

  /** Amounts in base units; null removes a bound, absent leaves it. */
  async setPolicyLimits(
    this: ApiTransport,
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
  },

  async setRecipientRule(
    this: ApiTransport,
    tenantId: string,
    chainId: number,
    recipients: 'allow_list' | 'any',
  ): Promise<PolicyView> {
    const path = `${tenantPath(tenantId)}/policy/recipients`;
    return (await this.call<PolicyView>('PUT', path, { body: { chainId, recipients } })).body;
  },

  async recipients(
    this: ApiTransport,
    tenantId: string,
    chainId?: number,
  ): Promise<PolicyRecipientView[]> {
    const path = `${tenantPath(tenantId)}/recipients${queryString({ chainId })}`;
    return (await this.call<{ recipients: PolicyRecipientView[] }>('GET', path)).body.recipients;
  },

  async addRecipient(
    this: ApiTransport,
    tenantId: string,
    body: PolicyRecipientView,
  ): Promise<PolicyRecipientView> {
    const path = `${tenantPath(tenantId)}/recipients`;
    return (await this.call<PolicyRecipientView>('POST', path, { body })).body;
  },

  async removeRecipient(
    this: ApiTransport,
    tenantId: string,
    chainId: number,
    address: string,
  ): Promise<void> {
    const path = `${tenantPath(tenantId)}/recipients/${chainId}/${encodeURIComponent(address)}`;
    await this.call('DELETE', path);
  },

  async allowedCalls(
    this: ApiTransport,
    tenantId: string,
    chainId?: number,
  ): Promise<AllowedCallView[]> {
    const path = `${tenantPath(tenantId)}/contract-calls${queryString({ chainId })}`;
    return (await this.call<{ calls: AllowedCallView[] }>('GET', path)).body.calls;
  },

  async allowCall(
    this: ApiTransport,
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
  },

  async disallowCall(
    this: ApiTransport,
    tenantId: string,
    call: { chainId: number; contract: string; function: string },
  ): Promise<void> {
    const path = `${tenantPath(tenantId)}/contract-calls/${call.chainId}/${encodeURIComponent(call.contract)}/${encodeURIComponent(call.function)}`;
    await this.call('DELETE', path);
  },
};
