/**
 * What each JSON-RPC method costs against the provider's budget. Providers meter calls by weight:
 * Alchemy in throughput compute units per second, Infura in credits per method, a self-hosted
 * node in plain requests. The relayer spends every call it makes from one budget per endpoint.
 */
export interface MethodWeights {
  /** The preset the table started from, for logs and the bench. */
  preset: WeightPreset;
  /** Units of a method the table does not name. */
  otherMethods: number;
  byMethod: Readonly<Record<string, number>>;
}

export const weightPresets = ['per-call', 'alchemy'] as const;
export type WeightPreset = (typeof weightPresets)[number];

/**
 * The JSON-RPC methods a weight may be given for: the Ethereum execution API the relayer and its
 * operators use. A name outside it is a typo in the configuration, refused at start.
 */
export const knownRpcMethods = [
  'eth_blockNumber',
  'eth_call',
  'eth_chainId',
  'eth_estimateGas',
  'eth_feeHistory',
  'eth_gasPrice',
  'eth_getBalance',
  'eth_getBlockByHash',
  'eth_getBlockByNumber',
  'eth_getBlockReceipts',
  'eth_getCode',
  'eth_getLogs',
  'eth_getTransactionByHash',
  'eth_getTransactionCount',
  'eth_getTransactionReceipt',
  'eth_maxPriorityFeePerGas',
  'eth_sendRawTransaction',
  'net_version',
] as const;

/**
 * Alchemy's throughput compute units (what its per-second limit counts), from its published
 * compute-unit table (docs: reference/compute-unit-costs): most reads 10–26, a send 250, all of
 * a block's receipts 500. Calls the table prices at 0 (eth_chainId, net_version) count 1 here:
 * a budget spends at least a unit on anything that reaches the provider.
 */
const alchemy: Record<string, number> = {
  eth_blockNumber: 10,
  eth_maxPriorityFeePerGas: 10,
  eth_feeHistory: 10,
  eth_getTransactionReceipt: 20,
  eth_getBlockByNumber: 20,
  eth_getBlockByHash: 20,
  eth_getTransactionByHash: 20,
  eth_gasPrice: 20,
  eth_getBalance: 20,
  eth_getCode: 20,
  eth_getTransactionCount: 20,
  eth_estimateGas: 20,
  eth_call: 26,
  eth_getLogs: 60,
  eth_sendRawTransaction: 250,
  eth_getBlockReceipts: 500,
  eth_chainId: 1,
  net_version: 1,
};

export const presetWeights = (preset: WeightPreset): MethodWeights =>
  preset === 'alchemy'
    ? { preset, otherMethods: 20, byMethod: alchemy }
    : { preset, otherMethods: 1, byMethod: {} };

export const weightOf = (weights: MethodWeights, method: string): number =>
  weights.byMethod[method] ?? weights.otherMethods;

/** Methods a relayer may need before it can pay at all: the budget must fit each of them. */
export const essentialMethods = [
  'eth_sendRawTransaction',
  'eth_getBlockByNumber',
  'eth_getTransactionReceipt',
  'eth_getTransactionCount',
  'eth_estimateGas',
] as const;

/**
 * Whose call goes first when the budget is short (Bottleneck priorities: 0 first, 9 last). The
 * reads that decide intents first — the head and its receipts, a read or two per block that every
 * confirming intent waits on (behind the sends they were measured to add blocks to confirmations)
 * — then sends, each holding a permit and its wallet's next nonce; then what a send needs before
 * it signs; then look-ups that can wait (a transaction by hash, code, balances).
 */
export function priorityOf(method: string): number {
  switch (method) {
    case 'eth_blockNumber':
    case 'eth_getBlockByNumber':
    case 'eth_getBlockReceipts':
    case 'eth_getTransactionReceipt':
      return 0;
    case 'eth_sendRawTransaction':
      return 1;
    case 'eth_maxPriorityFeePerGas':
    case 'eth_estimateGas':
    case 'eth_getBalance':
    case 'eth_getTransactionCount':
      return 4;
    default:
      return 6;
  }
}
