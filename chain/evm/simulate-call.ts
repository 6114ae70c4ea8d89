import { BaseError, ContractFunctionRevertedError } from 'viem';
import type { Hex } from '../../domain/transfer';
import { classifyRpcError, RpcErrorKind } from '../evm-rpc-errors';
import type { EvmContext } from './context';

/**
 * The exact call, run from `from` at the head (nothing is sent): what it returns, or that it
 * reverts and why. Any other failure (the node unreachable, a timeout) is thrown, typed.
 */
export async function simulateCall(
  { client, typed }: EvmContext,
  from: Hex,
  call: { to: Hex; value: bigint; data?: Hex },
): Promise<{ ok: true; data: Hex | undefined } | { ok: false; why: string }> {
  try {
    const { data } = await client.call({
      account: from,
      to: call.to,
      value: call.value,
      ...(call.data && { data: call.data }),
    });
    return { ok: true, data };
  } catch (error) {
    const reason = revertReasonOf(error);
    if (reason !== undefined) return { ok: false, why: `it reverts: ${reason}` };
    throw typed(error, from);
  }
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
