import { BaseError, ContractFunctionRevertedError, hexToBigInt } from 'viem';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import type { Hex } from '../../domain/transfer';
import { deliveryProbeCode, erc20ReadAbi, judgeTransferReturn } from '../erc20';
import { classifyRpcError, RpcErrorKind } from '../evm-rpc-errors';
import type { EvmContext } from './context';

/** An ERC-20's symbol and decimals, read from it; throws when it answers neither. */
export async function tokenInfo(
  { rpc, client }: EvmContext,
  token: Hex,
): Promise<{ symbol: string; decimals: number }> {
  const read = <T>(functionName: 'symbol' | 'decimals') =>
    rpc(client.readContract({ address: token, abi: erc20ReadAbi, functionName }) as Promise<T>);
  const [symbol, decimals] = await Promise.all([read<string>('symbol'), read<number>('decimals')]);
  return { symbol, decimals: Number(decimals) };
}

/**
 * The exact call, simulated from `from` at the head: accepted when it neither reverts nor
 * returns false (SafeERC20's rule), else refused with the revert reason or the false.
 */
export async function simulatePayment(
  { client, typed }: EvmContext,
  from: Hex,
  call: { to: Hex; value: bigint; data?: Hex },
): Promise<{ ok: true } | { ok: false; why: string }> {
  try {
    const { data } = await client.call({
      account: from,
      to: call.to,
      value: call.value,
      ...(call.data && { data: call.data }),
    });
    return judgeTransferReturn(data);
  } catch (error) {
    const reason = revertReasonOf(error);
    if (reason !== undefined) return { ok: false, why: `it reverts: ${reason}` };
    throw typed(error, from);
  }
}

/**
 * What a transfer of `amount` of `token` from `wallet` delivers, simulated: a state override
 * runs a probe as the wallet (nothing is sent).
 */
export async function probeDelivery(
  { rpc, client }: EvmContext,
  token: Hex,
  wallet: Hex,
  amount: bigint,
): Promise<bigint> {
  const probe = privateKeyToAddress(generatePrivateKey());
  const { data } = await rpc(
    client.call({
      to: wallet,
      stateOverride: [{ address: wallet, code: deliveryProbeCode(token, probe, amount) }],
    }),
  );
  return data && data !== '0x' ? hexToBigInt(data) : 0n;
}

/**
 * The reason a call reverted with, when the node says it reverted ("execution reverted", with or
 * without an Error(string)); undefined for any other failure (the node unreachable, a timeout).
 */
function revertReasonOf(error: unknown): string | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const reverted = error.walk((cause) => cause instanceof ContractFunctionRevertedError);
  if (reverted instanceof ContractFunctionRevertedError)
    return reverted.reason ?? 'no reason given';
  if (classifyRpcError(error).kind !== RpcErrorKind.executionReverted) return undefined;
  const said = /reverted(?: with reason)?:?\s*(.*)/i.exec(error.details || error.shortMessage)?.[1];
  return said?.split('\n')[0]?.replace(/\.$/, '').trim() || 'no reason given';
}
