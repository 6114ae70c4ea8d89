import { defineSignal } from '@temporalio/workflow';

/**
 * Sent by a process following the chain's blocks (workers/block-follower.ts) when a block holds
 * one of the intent's transactions, or outprices its bid: a hint to look now instead of at the
 * next spaced look. The look itself still reads the receipt at its depth.
 */
export const transactionSeenSignal = defineSignal('transactionSeen');
