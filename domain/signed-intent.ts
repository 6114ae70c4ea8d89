import { BrokenInvariantError } from './errors/internal-errors';
import type { Intent } from './intent';

// What an intent has once signed; apart from domain/intent.ts, which the workflow bundle holds.

export interface SignedTransaction {
  nonce: number;
  txHash: `0x${string}`;
  rawTx: `0x${string}`;
}

/** The transaction persisted for the intent, once it was signed. */
export function signedTransactionOf(intent: Intent): SignedTransaction | undefined {
  const { nonce, txHash, rawTx } = intent;
  return nonce !== null && txHash && rawTx ? { nonce, txHash, rawTx } : undefined;
}

/** The wallet that signed the intent: every intent from `signed` on has one. */
export function signingWallet(intent: Intent): `0x${string}` {
  if (intent.from === null)
    throw new BrokenInvariantError({
      rule: `intent ${intent.id} is not signed: it has no wallet yet`,
    });
  return intent.from;
}
