import { getAddress } from 'viem';
import type { ChainRegistry } from '../chain/chain';
import { RelayerError, SignerRefusedError } from '../domain/errors';
import { ErrorName } from '../domain/error-catalogue';
import { parseSignerSetting } from '../domain/wallet-signer-setting';
import type { Database } from '../store/database';
import { registerWallet } from '../store/wallet-nonces';
import { addedWallets } from '../store/wallet-signers';
import type { SignerFactory } from './wallet-signers';
import { log } from '../domain/log';

export interface WalletDiscoverySettings {
  database: Database;
  chains: ChainRegistry;
  signerFor: SignerFactory;
}

/**
 * Takes on the wallets an operator added at run time (`wallets add`, `POST /v1/wallets`): each
 * signer is asked first whether it holds its wallet (the same check as at start); then the wallet
 * is registered with the chain's nonce on every chain and signs from the next step on. A signer
 * that says no is logged once and left out until the wallet is added again with another signer;
 * one that cannot be reached is asked again on the next look.
 */
export function walletDiscovery({ database, chains, signerFor }: WalletDiscoverySettings) {
  const refused = new Map<string, string>();
  const [firstChain] = chains.chainIds.map((chainId) => chains.get(chainId));

  async function takeOn(address: `0x${string}`, signerSpec: string): Promise<void> {
    const parsed = parseSignerSetting(address, signerSpec);
    if (!parsed.ok) throw new SignerRefusedError(address, 'its signer setting', parsed.problem);
    const signer = signerFor(parsed.setting);
    await signer.check?.();
    for (const chainId of chains.chainIds) {
      const chain = chains.get(chainId);
      await registerWallet(database, { chainId, address }, await chain.pendingNonce(address));
      chain.addSigner(signer);
    }
    log.info(`wallet ${address} taken on: its key is held by ${signer.keyLabel}`);
  }

  /** One look at the added wallets; never throws (each wallet's trouble is logged). */
  async function look(): Promise<void> {
    const known = new Set(firstChain?.walletAddresses.map((address) => address.toLowerCase()));
    for (const added of await addedWallets(database.kysely)) {
      const address = getAddress(added.address);
      if (known.has(address.toLowerCase()) || refused.get(address) === added.signer) continue;
      try {
        await takeOn(address, added.signer);
      } catch (error) {
        if (error instanceof RelayerError && error.name === ErrorName.signerUnavailable) {
          log.warn(`wallet ${address} not taken on yet: ${error.message}`);
        } else {
          refused.set(address, added.signer);
          log.error(`wallet ${address} not taken on: ${(error as Error).message}`);
        }
      }
    }
  }

  return {
    look: () => look().catch((error: Error) => log.error(`wallet discovery: ${error.message}`)),
  };
}
