import { z } from 'zod';
import type { WalletStanding } from '../../service/wallet-standing';
import { hex } from './common';

/** Hot wallets as an operator sees and changes them, and a tenant's wallet pool. */

export const walletSchema = z.object({
  chainId: z.number().int(),
  address: hex,
  balance: z.string().describe('wei, as a decimal string'),
  pendingNonces: z.number().int().describe('our signed transactions of it not ended yet'),
  blockedBy: z
    .string()
    .nullable()
    .describe('the intent in review whose unused nonce its lane waits behind'),
  low: z.boolean().describe('below LOW_BALANCE_ETH'),
  retired: z.boolean().describe('retired by an operator: signs nothing new'),
});

export const walletParamsSchema = z.strictObject({
  chainId: z.coerce.number().int().positive(),
  address: z.string(),
});

export const walletPoolBodySchema = z.strictObject({
  chainId: z.number().int().positive(),
  wallets: z
    .array(z.string())
    .nullable()
    .describe("the tenant's wallets on the chain; null: every wallet of the relayer"),
});
export const addWalletBodySchema = z.strictObject({
  address: z.string().describe('the wallet'),
  signer: z
    .string()
    .describe('where its key is: `kms:<key id, ARN or alias>` or `remote:<http(s) URL>`'),
});
export const addedWalletSchema = z
  .object({
    address: z.string(),
    signer: z.string().describe('a remote signer by its host only'),
  })
  .meta({ id: 'AddedWallet' });
export type WalletView = z.infer<typeof walletSchema>;
export const walletsSchema = z.object({ wallets: z.array(walletSchema) });

export const walletView = (wallet: WalletStanding): WalletView => ({
  chainId: wallet.chainId,
  address: wallet.address,
  balance: wallet.balanceWei.toString(),
  pendingNonces: wallet.pendingNonces,
  blockedBy: wallet.blockedBy,
  low: wallet.low,
  retired: wallet.retired,
});
