import type { WalletView } from '../../api/schemas/wallets';
import type { ApiTransport } from '../api-transport';

/** Hot wallets and tenants' wallet pools (api/routes/wallets.ts). */
export const walletRoutes = {
  async wallets(this: ApiTransport): Promise<WalletView[]> {
    return (await this.call<{ wallets: WalletView[] }>('GET', '/v1/wallets')).body.wallets;
  },

  async addWallet(
    this: ApiTransport,
    address: string,
    signer: string,
  ): Promise<{ address: string; signer: string }> {
    return (
      await this.call<{ address: string; signer: string }>('POST', '/v1/wallets', {
        body: { address, signer },
      })
    ).body;
  },

  async retireWallet(
    this: ApiTransport,
    chainId: number,
    address: string,
    retired: boolean,
  ): Promise<void> {
    const action = retired ? 'retire' : 'activate';
    await this.call('POST', `/v1/wallets/${chainId}/${encodeURIComponent(address)}/${action}`);
  },

  async setWalletPool(
    this: ApiTransport,
    tenantId: string,
    chainId: number,
    wallets: string[] | null,
  ): Promise<void> {
    await this.call('PUT', `/v1/tenants/${encodeURIComponent(tenantId)}/wallets`, {
      body: { chainId, wallets },
    });
  },
};
