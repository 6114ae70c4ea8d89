import { paymentCall } from './asset';
import type { Intent } from './intent';
import type { TransferRequest } from './transfer';

/**
 * The transaction that pays the intent, from `from`: its contract call as the tenant gave it, or
 * its asset's transfer (domain/asset.ts). Apart from
 * intent.ts, which workflows import: the ERC-20 call's encoding is viem's.
 */
export const paymentOf = (intent: Intent, from: `0x${string}`): TransferRequest => ({
  ...(intent.callData
    ? { from, to: intent.to, value: intent.amount, data: intent.callData }
    : { from, ...paymentCall(intent.asset, intent.to, intent.amount) }),
  ...(intent.maxFeePerGas && { feeCeiling: intent.maxFeePerGas }),
});
