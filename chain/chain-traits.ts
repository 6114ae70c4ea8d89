/** What sets chains apart beyond their endpoints: how they price gas, when a block is final. */

/** EIP-1559 (type 2: max fee and tip), or legacy (type 0: `gasPrice`) on a chain without it. */
export type GasPricing = 'eip1559' | 'legacy';

/** When a block can no longer be reorged away: the node's `finalized` block, or a depth. */
export type Finality = 'finalized' | number;
