import { formatUnits } from 'viem';
import { z } from 'zod';
import type { WalletStanding } from '../../service/wallet-standing';
import { hex } from './common';

/** The relayer's wallets as an operator sees and changes them, and a tenant's wallet pool. */

export const walletSchema = z.object({
  chainId: z.number().int(),
  address: hex,
  role: z
    .enum(['hot', 'treasury'])
    .describe("`hot` pays intents; the chain's `treasury` tops them up and pays no intent"),
  balance: z.string().describe('wei, as a decimal string'),
  pendingNonces: z.number().int().describe('our signed transactions of it not ended yet'),
  blockedBy: z
    .string()
    .nullable()
    .describe('the intent in review whose unused nonce its lane waits behind'),
  low: z.boolean().describe("below its low mark (LOW_BALANCE_ETH; a treasury's own)"),
  retired: z.boolean().describe('retired by an operator: signs nothing new'),
  topUps: z
    .array(
      z.object({
        id: z.string().describe('the top-up (an intent of the operators)'),
        status: z.string(),
        asset: z.string().describe('`native`, or the token'),
        amount: z.string().describe("in the asset's base units, as a decimal string"),
      }),
    )
    .describe("the hot wallet's top-ups from the treasury not ended yet (one per asset at most)"),
  tokens: z
    .array(
      z.object({
        asset: z.string().describe("the token's alias"),
        address: hex,
        balance: z.string().describe('base units, as a decimal string'),
        decimalBalance: z.string().describe("in the token's units, e.g. 250.5"),
      }),
    )
    .describe('what it holds of each token registered on its chain'),
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
  role: wallet.role,
  low: wallet.low,
  retired: wallet.retired,
  topUps: wallet.topUps.map((topUp) => ({ ...topUp, amount: topUp.amount.toString() })),
  tokens: wallet.tokens.map((token) => ({
    asset: token.alias,
    address: token.address,
    balance: token.balance.toString(),
    decimalBalance: formatUnits(token.balance, token.decimals),
  })),
});
