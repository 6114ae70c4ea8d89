import type { BalancesView, RegisteredTokenView, TokenView } from '../../api/schemas/assets';
import { queryString, type ApiTransport } from '../api-transport';

/** Balances and registered tokens (api/routes/assets.ts). */
export const assetRoutes = {
  async balances(this: ApiTransport): Promise<BalancesView> {
    return (await this.call<BalancesView>('GET', '/v1/balances')).body;
  },

  async tokens(this: ApiTransport, chainId?: number): Promise<TokenView[]> {
    const path = `/v1/assets${queryString({ chainId })}`;
    return (await this.call<{ tokens: TokenView[] }>('GET', path)).body.tokens;
  },

  async registerToken(
    this: ApiTransport,
    body: {
      chainId: number;
      address: string;
      alias?: string;
      feeOnTransfer?: boolean;
    },
  ): Promise<RegisteredTokenView> {
    return (await this.call<RegisteredTokenView>('POST', '/v1/assets', { body })).body;
  },
};
