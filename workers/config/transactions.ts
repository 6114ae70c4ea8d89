import { parseEther, parseGwei } from 'viem';
import { z } from 'zod';
import {
  defaultConfirmTimeoutMs,
  defaultSendWindowMs,
  defaultApprovalTtlMs,
} from '../../domain/intent-timings';
import { integer, decimal, decimalOrZero, finalitySetting, setting } from './parsers';

/** How a payment is sent and followed on the chain: depth, timeouts, fee caps, replacements. */
export const transactionsSettings = {
  confirmations: setting({
    env: 'CONFIRMATIONS',
    fallback: '1',
    doc: "Blocks (counting the receipt's) before an intent is confirmed",
    parse: integer(1, 1000),
  }),
  blockTimeMs: setting({
    env: 'BLOCK_TIME_MS',
    fallback: '0',
    doc: "The chains' block time: the first look at a sent transaction waits this × CONFIRMATIONS (0 looks at once, as on a chain that mines on arrival like anvil's automine)",
    parse: integer(0, 600_000),
  }),
  pollIntervalMs: setting({
    env: 'CONFIRM_POLL_INTERVAL_MS',
    fallback: '1000',
    doc: 'Wait between two looks at a pending transaction',
    parse: integer(50, 600_000),
  }),
  rpcTimeoutMs: setting({
    env: 'RPC_TIMEOUT_MS',
    fallback: '10000',
    doc: 'Timeout of one JSON-RPC request',
    parse: integer(100, 25_000),
  }),
  stuckAfterMs: setting({
    env: 'STUCK_AFTER_MS',
    fallback: '60000',
    doc: 'A sent transaction not mined this long is replaced with a higher fee bid (same nonce), or the nonce gap before it filled',
    parse: integer(100, 86_400_000),
  }),
  delayedAfterMs: setting({
    env: 'DELAYED_AFTER_MS',
    fallback: 'auto',
    doc: "A payment not mined this long after its first transaction tells its tenant `intent.delayed` (and again at each fee bump after that); `auto`: three times the chain's expected inclusion time (BLOCK_TIME_MS, or CONFIRM_POLL_INTERVAL_MS where blocks come on arrival)",
    parse: z.union([z.literal('auto'), integer(100, 86_400_000)]),
  }),
  delayedNoticesMax: setting({
    env: 'DELAYED_NOTICES_MAX',
    fallback: '3',
    doc: '`intent.delayed` notices one payment may send at most (0: none)',
    parse: integer(0, 20),
  }),
  speedUpsMax: setting({
    env: 'SPEED_UPS_MAX',
    fallback: '3',
    doc: 'Speed-ups (`POST /v1/intents/{id}/speed-up`) one payment may take at most, each a replacement at its nonce within the fee caps (0: none)',
    parse: integer(0, 20),
  }),
  sendWindowMs: setting({
    env: 'SEND_WINDOW_MS',
    fallback: String(defaultSendWindowMs),
    doc: 'How long a send is retried with the same signed bytes before the intent waits in needs_review for a person (the review rule); recorded in each intent as it starts',
    parse: integer(1000, 86_400_000),
  }),
  confirmTimeoutMs: setting({
    env: 'CONFIRM_TIMEOUT_MS',
    fallback: String(defaultConfirmTimeoutMs),
    doc: 'How long a sent transaction may stay unconfirmed before the intent waits in needs_review (the lane rule runs from then on); recorded in each intent as it starts',
    parse: integer(1000, 7 * 86_400_000),
  }),
  approvalTtlMs: setting({
    env: 'APPROVAL_TTL_MS',
    fallback: String(defaultApprovalTtlMs),
    doc: "How long an intent at or above its tenant's approval threshold waits for a second key's approval before it ends `rejected` (72 h); recorded in each intent as it starts",
    parse: integer(1000, 30 * 86_400_000),
  }),
  finality: setting({
    env: 'FINALITY',
    fallback: 'finalized',
    doc: "When a confirmed intent's block is final (`finalizedAt`, webhook `intent.finalized`): `finalized` (the node's finalized block) or a depth in blocks; per chain in CHAINS_FILE",
    parse: finalitySetting,
  }),
  gasPricing: setting({
    env: 'GAS_PRICING',
    fallback: 'eip1559',
    doc: 'How the chain prices gas: `eip1559` (type-2 transactions, max fee and tip) or `legacy` (type-0, `gasPrice`, for chains without EIP-1559; replacements bump it); per chain in CHAINS_FILE',
    parse: z.enum(['eip1559', 'legacy'], { error: 'must be eip1559 or legacy' }),
  }),
  maxFeePerGas: setting({
    env: 'MAX_FEE_PER_GAS_GWEI',
    fallback: '500',
    doc: 'Cap on the max fee per gas of any attempt, in gwei: above it sends wait',
    parse: decimal(parseGwei, 'gwei'),
  }),
  maxPriorityFeePerGas: setting({
    env: 'MAX_PRIORITY_FEE_GWEI',
    fallback: '20',
    doc: 'Cap on the priority fee (tip) per gas of any attempt, in gwei',
    parse: decimal(parseGwei, 'gwei'),
  }),
  maxFeePerTransfer: setting({
    env: 'MAX_FEE_PER_TRANSFER_ETH',
    fallback: '0.05',
    doc: 'Cap on what one transfer may spend on gas (gas limit × max fee per gas), in ether',
    parse: decimal(parseEther, 'ether'),
  }),
  baseFeeFloor: setting({
    env: 'BASE_FEE_FLOOR_GWEI',
    fallback: '0',
    doc: 'The least base fee the chain charges, in gwei: a payment whose own `maxFeePerGas` is below it is refused at submit (it could never be mined); per chain in CHAINS_FILE',
    parse: decimalOrZero(parseGwei, 'gwei'),
  }),
  gasPaidBy: setting({
    env: 'GAS_PAID_BY',
    fallback: 'house',
    doc: "Who the books charge the gas of each mined transaction to, in the native coin: `house` (the relayer's own account, `@system/house`), or `tenant` (its native account: up to MAX_FEE_PER_TRANSFER_ETH is held with every intent, native or token, the gas captured and the rest released; the house pays what the cap does not cover, such as an L1 data fee)",
    parse: z.enum(['house', 'tenant'], { error: 'must be house or tenant' }),
  }),
  lowBalance: setting({
    env: 'LOW_BALANCE_ETH',
    fallback: '0.1',
    doc: 'A hot wallet below this balance, in ether, is logged by the workers and listed in /readyz (`warnings`) and `wallets list`',
    parse: decimal(parseEther, 'ether'),
  }),
  walletWatchMs: setting({
    env: 'WALLET_WATCH_MS',
    fallback: '30000',
    doc: "How often a worker reads its hot wallets' balances for the metric and the low-balance log, and takes on wallets added at run time (`wallets add`); 0: never (added wallets are then taken on when a worker starts)",
    parse: integer(0, 86_400_000),
  }),
  cancelMaxFeePerGas: setting({
    env: 'CANCEL_MAX_FEE_PER_GAS_GWEI',
    fallback: '1000',
    doc: "Cap on the max fee and tip per gas of an operator's cancel (review decision), in gwei: it must outbid every attempt",
    parse: decimal(parseGwei, 'gwei'),
  }),
  replacementBumpPercent: setting({
    env: 'REPLACEMENT_BUMP_PERCENT',
    fallback: '20',
    doc: 'A replacement outbids the stuck attempt by this much on both fee fields (nodes need ≥ 10)',
    parse: integer(10, 1000),
  }),
};
