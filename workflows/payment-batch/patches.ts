// The patches of paymentBatch: where a batch's history says which shape it took.

/**
 * Recorded in histories whose items of one wallet sign in turns handed on among themselves;
 * older runs started a wallet's next item only once the one before reported it was signed.
 */
export const walletTurnsPatch = 'wallet-turns';
/**
 * Recorded where the batch starts its items as paymentIntentV2; older runs started paymentIntent
 * children; its old branch can go once no batch from before it is open. One marker a batch,
 * not one an item.
 */
export const intentV2ChildrenPatch = 'intent-v2-children';
/**
 * Recorded where a stop found with nothing running skips the pending items; older runs left them.
 */
export const stopWithNothingRunningPatch = 'stop-with-nothing-running';
