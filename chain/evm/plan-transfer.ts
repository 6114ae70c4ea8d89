import { FeeAboveCapError, type UnknownWalletError } from '../../domain/errors';
import type { Hex, TransferPlan, TransferRequest } from '../../domain/transfer';
import {
  cancelBid,
  capsUnder,
  withTipFloor,
  firstBid,
  replacementBid,
  type FeeBid,
  type FeeChoice,
  type FeeMarket,
} from '../fee-policy';
import type { EvmContext, RpcErrorType } from './context';

export type PlanTransferParameters = TransferRequest;
export type PlanTransferReturnType = TransferPlan;
/**
 * The bid above the chain's caps (retryable: the market may come down), the wallet one this
 * process cannot sign for, or the node's answer (gas estimate, fee market) typed.
 */
export type PlanTransferErrorType = FeeAboveCapError | UnknownWalletError | RpcErrorType;

/**
 * The plan of an attempt whose nonce a new bid takes over; `asked`: a person's speed-up, the
 * least bid they want (within the caps).
 */
export type PlanReplacementParameters = { previous: TransferPlan; asked?: Partial<FeeBid> };
export type PlanReplacementReturnType = TransferPlan;
export type PlanReplacementErrorType = FeeAboveCapError | RpcErrorType;

/** A zero-value transfer from `wallet` to itself, bidding over every attempt at its nonce. */
export type PlanCancelParameters = { wallet: Hex; attempts: readonly FeeBid[] };
export type PlanCancelReturnType = TransferPlan;
export type PlanCancelErrorType = FeeAboveCapError | RpcErrorType;

/** A plain transfer to an address without code costs exactly this gas, no estimate needed. */
export const plainTransferGas = 21_000n;

/** The base fee can rise 12.5% a block; twice today's base fee stays valid for six full blocks. */
const baseFeeHeadroom = 2n;

/** The market a bid is made in: read once per head block (shared by the fleet's reads). */
async function feeMarket(context: EvmContext) {
  const { rpc, watcher, reads, client, gasPricing, lookMaxAgeMs, settings } = context;
  const { block } = await rpc(watcher.currentHead(lookMaxAgeMs));
  if (gasPricing === 'legacy') {
    // One price per gas, read once per head block: the floor and the bid, no tip (the fee
    // policy then bids it, replacements bump it, and a transaction signs it as gasPrice).
    const gasPrice = await rpc(reads.valueAt(block.hash, 'gasPrice', () => client.getGasPrice()));
    return { baseFeePerGas: gasPrice, maxFeePerGas: gasPrice, maxPriorityFeePerGas: 0n };
  }
  // The tip the node suggests, like the wallets' balances: read once per head block.
  const tip = await rpc(
    reads.valueAt(block.hash, 'tip', () => client.estimateMaxPriorityFeePerGas()),
  );
  const { baseFeePerGas } = block;
  const market = {
    baseFeePerGas,
    maxFeePerGas: baseFeePerGas * baseFeeHeadroom + tip,
    maxPriorityFeePerGas: tip,
  } satisfies FeeMarket;
  return withTipFloor(market, settings.minPriorityFeePerGas ?? 0n);
}

/** The bid, or FeeAboveCap (retryable: the market may come down within the send window). */
function chosen({ chainId, settings }: EvmContext, choice: FeeChoice) {
  if (!choice.ok) throw new FeeAboveCapError(chainId, choice.reason, settings.stuckAfterMs);
  return choice.bid;
}

/**
 * Gas of a transfer: exact for a plain one to an address without code, else estimated (call data
 * costs gas even where no code runs, by rules that change with the chain's fork).
 */
async function gasOf({ rpc, codes, client }: EvmContext, request: TransferRequest) {
  const plain = request.data === undefined || request.data === '0x';
  if (plain && !(await rpc(codes.hasCode(request.to)))) return plainTransferGas;
  return rpc(
    client.estimateGas({
      account: request.from,
      to: request.to,
      value: request.value,
      ...(request.data && { data: request.data }),
    }),
    request.from,
  );
}

/** A transfer's gas and first bid; a wallet this process cannot sign for is refused first. */
export async function planTransfer(
  context: EvmContext,
  request: PlanTransferParameters,
): Promise<PlanTransferReturnType> {
  context.signerFor(request.from);
  const [market, gas] = await Promise.all([feeMarket(context), gasOf(context, request)]);
  const caps = capsUnder(context.settings.fees.caps, request.feeCeiling);
  return { ...request, gas, ...chosen(context, firstBid(market, gas, caps)) };
}

/** The same transfer outbidding `previous` at the same nonce. */
export async function planReplacement(
  context: EvmContext,
  { previous, asked }: PlanReplacementParameters,
): Promise<PlanReplacementReturnType> {
  const market = await feeMarket(context);
  const { fees } = context.settings;
  const policy = { ...fees, caps: capsUnder(fees.caps, previous.feeCeiling) };
  const bid = replacementBid(previous, market, previous.gas, policy, asked);
  return { ...previous, ...chosen(context, bid) };
}

/** A zero-value transfer from `wallet` to itself outbidding every one of `attempts`. */
export async function planCancel(
  context: EvmContext,
  { wallet, attempts }: PlanCancelParameters,
): Promise<PlanCancelReturnType> {
  const market = await feeMarket(context);
  const bid = cancelBid(attempts, market, plainTransferGas, context.settings.fees);
  return { from: wallet, to: wallet, value: 0n, gas: plainTransferGas, ...chosen(context, bid) };
}
