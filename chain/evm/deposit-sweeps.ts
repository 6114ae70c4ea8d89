import { getAddress, hexToBigInt, parseEventLogs } from 'viem';
import type { Hex } from '../../domain/transfer';
import { depositFactoryAbi } from '../contracts/deposit-forwarders-code';
import { balanceOfCall, tokenTransfersOf } from '../erc20';
import { gasPaidBy } from './observe';
import type { EvmContext, RpcErrorType } from './context';
import { receiptIfAny } from './deposit-reads';
import type { SweepOutcome } from '../inbound-transfer';

// What a mined sweep moved, and what deposit addresses held at a block: each read
// through the background client (behind every payment in the RPC budget's line).

export type SweepOutcomeParameters = { txHash: Hex; factory: Hex };
export type SweepOutcomeReturnType = SweepOutcome | undefined;
export type SweepOutcomeErrorType = RpcErrorType;

/**
 * The receipt of a sweep: the factory's Swept event names the forwarder and the native coin it
 * moved; tokens show in their own Transfer logs from the forwarder. Undefined: no receipt.
 */
export async function sweepOutcome(
  context: EvmContext,
  { txHash, factory }: SweepOutcomeParameters,
): Promise<SweepOutcomeReturnType> {
  const receipt = await receiptIfAny(context, txHash);
  if (!receipt) return undefined;
  const moved = new Map<string, Map<string, bigint>>();
  const add = (forwarder: string, asset: string, amount: bigint) => {
    const assets = moved.get(forwarder) ?? new Map<string, bigint>();
    assets.set(asset, (assets.get(asset) ?? 0n) + amount);
    moved.set(forwarder, assets);
  };
  const logs = parseEventLogs({ abi: depositFactoryAbi, logs: receipt.logs, strict: true });
  const forwarders = new Set<string>();
  for (const log of logs) {
    if (log.eventName !== 'Swept' || getAddress(log.address) !== getAddress(factory)) continue;
    forwarders.add(getAddress(log.args.forwarder));
    if (log.args.native > 0n) add(getAddress(log.args.forwarder), 'native', log.args.native);
  }
  for (const transfer of tokenTransfersOf(receipt.logs)) {
    if (forwarders.has(transfer.from)) add(transfer.from, transfer.token, transfer.value);
  }
  return { blockNumber: receipt.blockNumber, gasPaid: gasPaidBy(receipt), moved };
}

export type BalancesAtParameters = { address: Hex; assets: readonly string[]; blockNumber: bigint };
export type BalancesAtReturnType = Map<string, bigint>;
export type BalancesAtErrorType = RpcErrorType;

/** What `address` held of each asset (`native` or a token) at `blockNumber`. */
export async function balancesAt(
  { background, rpc }: EvmContext,
  { address, assets, blockNumber }: BalancesAtParameters,
): Promise<BalancesAtReturnType> {
  const held = new Map<string, bigint>();
  for (const asset of assets) {
    if (asset === 'native') {
      held.set(asset, await rpc(background.getBalance({ address, blockNumber })));
      continue;
    }
    const { data } = await rpc(
      background.call({ to: asset as Hex, data: balanceOfCall(address), blockNumber }),
    );
    held.set(asset, data && data !== '0x' ? hexToBigInt(data) : 0n);
  }
  return held;
}
