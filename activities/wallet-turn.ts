import type { WalletTurn } from '../domain/wallet-turn';
import type { BatchItemParameters } from './batch/batch-item-parameters';
import type { ActivityDependencies } from './dependencies';
import { itemsWaitingForTurnBefore, turnsToTell, walletTurnOf } from '../store/wallet-turns';

/**
 * How far a batch item that names its wallet may go now (domain/wallet-turn.ts), read from the
 * store. A local activity: the look an item takes when it starts, or when no word came.
 */
export const walletTurnCame =
  ({ db }: ActivityDependencies) =>
  ({ batchId, index }: BatchItemParameters): Promise<WalletTurn> =>
    walletTurnOf(db.kysely, batchId, index);

/**
 * Once `item` is held, signed or ended unsigned, tells the next items of its wallet the turn each
 * now has: a word the receiver may trust, since a turn only moves forward. A word lost here
 * (Temporal unreachable) is told again by the fleet's sweep (retellTurns), so it costs time,
 * never order; a crash before it is sent retries the step, which tells again.
 */
export async function passWalletTurn(
  { db, workflows }: ActivityDependencies,
  item: BatchItemParameters,
): Promise<void> {
  if (!workflows) return;
  for (const { intentId, turn } of await turnsToTell(db.kysely, item.batchId, item.index)) {
    await workflows.tellWalletTurn(intentId, turn).catch(() => undefined);
  }
}

/**
 * For the fleet's sweep: batch items waiting for their wallet's turn since before `cutoff` are
 * told the turn they have, in case the word was lost. Returns how many were told.
 */
export async function retellTurns(
  { db, workflows }: ActivityDependencies,
  cutoff: Date,
): Promise<number> {
  if (!workflows) return 0;
  let told = 0;
  for (const item of await itemsWaitingForTurnBefore(db.kysely, cutoff)) {
    const turn = await walletTurnOf(db.kysely, item.batchId, item.index);
    if (turn === 'wait') continue;
    await workflows.tellWalletTurn(item.intentId, turn);
    told++;
  }
  return told;
}
