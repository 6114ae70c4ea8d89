import { condition, setHandler } from '@temporalio/workflow';
import { furtherTurn, turnReaches, type WalletTurn } from '../../domain/wallet-turn';
import { walletTurnSignal } from '../payment-batch/signals';
import type { PaymentIntentInput } from './input';
import { inTask } from './steps';

export type WalletTurns = NonNullable<ReturnType<typeof walletTurns>>;

/**
 * For a batch item that signs in its wallet's turn (domain/wallet-turn.ts): waits until it may
 * start (take its permit, settle, hold) and then until it may sign. It looks for itself once, as
 * it starts; after that the steps that hold, sign or end the items before it tell it
 * (walletTurnSignal), and the fleet's sweep tells it again if a word was lost. No timer of its
 * own: a wait costs no history events.
 */
export function walletTurns(input: PaymentIntentInput) {
  const { batch } = input;
  if (!batch?.walletTurn) return undefined;
  const item = { batchId: batch.walletTurn.batchId, index: batch.index };
  let granted: WalletTurn = 'wait';
  setHandler(walletTurnSignal, (turn) => {
    granted = furtherTurn(granted, turn);
  });
  const look = async () => {
    granted = furtherTurn(granted, await inTask.walletTurnCame(item));
  };
  return {
    item,
    /**
     * Until `wanted` is granted; `lookFirst` where no word may ever come (the item just started).
     */
    async waitFor(wanted: WalletTurn, lookFirst: boolean): Promise<void> {
      if (lookFirst && !turnReaches(granted, wanted)) await look();
      await condition(() => turnReaches(granted, wanted));
    },
  };
}
