import { privateKeyToAccount } from 'viem/accounts';
import type { Hex } from '../../domain/transfer';
import type { WalletSigner } from './wallet-signer';

/** A key held in this process's memory (HOT_WALLET_KEYS or HOT_WALLET_KEYS_FILE). */
export const localSigner = (privateKey: Hex): WalletSigner => ({
  account: privateKeyToAccount(privateKey),
  keyLabel: 'local key',
  inProcess: true,
});
