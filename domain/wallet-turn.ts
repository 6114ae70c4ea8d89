import { IntentStatus } from './intent';

/**
 * How far a batch item of a named wallet may go, given the items before it of that wallet that
 * have not signed yet (those that ended unsigned do not count): `sign` when there are none;
 * `start` (take its permit, settle, hold) when there are fewer than `preparedAhead` and every one
 * of them is held, so none needs a permit this item could take; else `wait`. So a wallet's items
 * sign in input order, the next few prepared while the first signs, and at most `preparedAhead`
 * of them hold a permit unsigned. A turn only ever moves forward: items ahead only sign or end.
 */
export type WalletTurn = 'wait' | 'start' | 'sign';

/** How many of a wallet's items may be prepared (permit, hold) before their turn to sign. */
export const preparedAhead = 2;

const rank: Record<WalletTurn, number> = { wait: 0, start: 1, sign: 2 };

/**
 * The turn, given the closest `preparedAhead` earlier items of the wallet that did not end
 * unsigned, closest first.
 */
export function walletTurnAfter(
  closest: readonly { signed: boolean; status: IntentStatus | null }[],
): WalletTurn {
  const firstSigned = closest.findIndex((item) => item.signed);
  const unsigned = firstSigned < 0 ? closest : closest.slice(0, firstSigned);
  if (unsigned.length === 0) return 'sign';
  // As many unsigned as were read: there may be more before them.
  if (unsigned.length >= preparedAhead) return 'wait';
  return unsigned.every((item) => item.status === IntentStatus.held) ? 'start' : 'wait';
}

/** Whether `granted` lets an item do what `wanted` allows. */
export const turnReaches = (granted: WalletTurn, wanted: WalletTurn): boolean =>
  rank[granted] >= rank[wanted];

/** The further of two turns (a turn never moves back). */
export const furtherTurn = (a: WalletTurn, b: WalletTurn): WalletTurn =>
  rank[a] >= rank[b] ? a : b;
