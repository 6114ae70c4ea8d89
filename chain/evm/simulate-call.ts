import { BaseError, ContractFunctionRevertedError } from 'viem';
import type { Hex } from '../../domain/transfer';
import { classifyRpcError, RpcErrorKind } from '../evm-rpc-errors';
import type { EvmContext, RpcErrorType } from './context';

/** A call from `from`: the payment's or the contract call's. */
export type SimulateCallParameters = { from: Hex; to: Hex; value: bigint; data?: Hex };
export type SimulateCallReturnType =
  { ok: true; data: Hex | undefined } | { ok: false; why: string };
/** A revert is no error: it is the answer (`ok: false`). */
export type SimulateCallErrorType = RpcErrorType;

/**
 * The exact call, run from `from` at the head (nothing is sent): what it returns, or that it
 * reverts and why. Any other failure (the node unreachable, a timeout) is thrown, typed.
 */
export async function simulateCall(
  { client, typed }: EvmContext,
  { from, to, value, data: input }: SimulateCallParameters,
): Promise<SimulateCallReturnType> {
  try {
    const { data } = await client.call({
      account: from,
      to,
      value,
      ...(input && { data: input }),
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
