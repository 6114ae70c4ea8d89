import type { z } from 'zod';
import type {
  depositAddressSchema,
  depositSchema,
  reconciliationSchema,
} from '../../api/schemas/deposits';
import type { DepositStatus } from '../../domain/deposit';
import { queryString, type ApiTransport } from '../api-transport';

export type DepositAddressView = z.infer<typeof depositAddressSchema>;
export type DepositView = z.infer<typeof depositSchema>;
export type ReconciliationView = z.infer<typeof reconciliationSchema>;

/** A tenant's deposit addresses and deposits (api/routes/deposits.ts). */
export const depositRoutes = {
  async depositAddress(
    this: ApiTransport,
    body: {
      chainId: number;
      index?: number;
      reference?: string;
      metadata?: Record<string, string>;
    },
  ): Promise<DepositAddressView> {
    return (await this.call<DepositAddressView>('POST', '/v1/deposit-addresses', { body })).body;
  },

  async depositAddresses(this: ApiTransport): Promise<DepositAddressView[]> {
    type Answer = { addresses: DepositAddressView[] };
    return (await this.call<Answer>('GET', '/v1/deposit-addresses')).body.addresses;
  },

  async deposits(
    this: ApiTransport,
    query: { status?: DepositStatus; limit?: number } = {},
  ): Promise<DepositView[]> {
    const path = `/v1/deposits${queryString(query)}`;
    return (await this.call<{ deposits: DepositView[] }>('GET', path)).body.deposits;
  },

  async reconcileDeposits(this: ApiTransport, chainId: number): Promise<ReconciliationView> {
    const body = { chainId };
    return (await this.call<ReconciliationView>('POST', '/v1/deposits/reconcile', { body })).body;
  },
};
