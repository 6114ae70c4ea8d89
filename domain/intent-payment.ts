import { paymentCall } from './asset';
import type { Intent } from './intent';
import type { TransferRequest } from './transfer';

/**
 * The transfer that pays the intent, from `from`: its asset's call (domain/asset.ts). Apart from
 * intent.ts, which workflows import: the ERC-20 call's encoding is viem's.
 */
export const paymentOf = (intent: Intent, from: `0x${string}`): TransferRequest => ({
  from,
  ...paymentCall(intent.asset, intent.to, intent.amount),
});
