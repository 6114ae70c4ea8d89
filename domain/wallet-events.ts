import type { Hex } from './transfer';

/** What the operators' webhook endpoints are told of the relayer's own wallets. */
export const walletEventTypes = [
  'wallet.low_balance',
  'wallet.topped_up',
  'treasury.low_balance',
] as const;
export type WalletEventType = (typeof walletEventTypes)[number];

export type WalletEvent =
  /** A hot wallet went below its low mark (once a dip); `topUpId`: the top-up started for it. */
  | {
      type: 'wallet.low_balance';
      chainId: number;
      wallet: Hex;
      /** `native`, or the token's address; amounts in its base units. */
      asset: string;
      balance: bigint;
      lowMark: bigint;
      topUpId: string | null;
    }
  /** A top-up of the wallet was confirmed. */
  | {
      type: 'wallet.topped_up';
      chainId: number;
      wallet: Hex;
      asset: string;
      amount: bigint;
      topUpId: string;
      txHash: Hex | null;
    }
  /**
   * The chain's treasury went below its own low mark in the native coin, or cannot pay a top-up
   * it owes in an asset (once a dip).
   */
  | {
      type: 'treasury.low_balance';
      chainId: number;
      wallet: Hex;
      asset: string;
      balance: bigint;
      lowMark: bigint;
    };

/** The subject a wallet's events are counted under (the outbox's per-subject sequence). */
export const walletSubject = (chainId: number, wallet: Hex): string =>
  `wallet:${chainId}:${wallet}`;

/** The body of a wallet event, serialized once; amounts in wei as decimal strings. */
export function walletEventBody(
  event: WalletEvent,
  change: { sequence: number; at: Date },
): string {
  const { type, ...data } = event;
  return JSON.stringify({
    type,
    timestamp: change.at.toISOString(),
    data: {
      sequence: change.sequence,
      ...Object.fromEntries(
        Object.entries(data).map(([key, value]) => [
          key,
          typeof value === 'bigint' ? value.toString() : value,
        ]),
      ),
    },
  });
}
