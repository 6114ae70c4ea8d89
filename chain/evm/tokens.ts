import { hexToBigInt } from 'viem';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import type { Hex } from '../../domain/transfer';
import { deliveryProbeCode, erc20ReadAbi, judgeTransferReturn } from '../erc20';
import type { EvmContext, RpcErrorType } from './context';
import { simulateCall, type SimulateCallParameters } from './simulate-call';

export type TokenInfoParameters = { token: Hex };
export type TokenInfoReturnType = { symbol: string; decimals: number };
export type TokenInfoErrorType = RpcErrorType;

export type SimulatePaymentParameters = SimulateCallParameters;
export type SimulatePaymentReturnType = { ok: true } | { ok: false; why: string };
export type SimulatePaymentErrorType = RpcErrorType;

export type ProbeDeliveryParameters = { token: Hex; wallet: Hex; amount: bigint };
/** What the recipient would receive. */
export type ProbeDeliveryReturnType = bigint;
export type ProbeDeliveryErrorType = RpcErrorType;

/** An ERC-20's symbol and decimals, read from it; throws when it answers neither. */
export async function tokenInfo(
  { rpc, client }: EvmContext,
  { token }: TokenInfoParameters,
): Promise<TokenInfoReturnType> {
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
  context: EvmContext,
  parameters: SimulatePaymentParameters,
): Promise<SimulatePaymentReturnType> {
  const simulated = await simulateCall(context, parameters);
  return simulated.ok ? judgeTransferReturn(simulated.data) : simulated;
}

/**
 * What a transfer of `amount` of `token` from `wallet` delivers, simulated: a state override
 * runs a probe as the wallet (nothing is sent).
 */
export async function probeDelivery(
  { rpc, client }: EvmContext,
  { token, wallet, amount }: ProbeDeliveryParameters,
): Promise<ProbeDeliveryReturnType> {
  const probe = privateKeyToAddress(generatePrivateKey());
  const { data } = await rpc(
    client.call({
      to: wallet,
      stateOverride: [{ address: wallet, code: deliveryProbeCode(token, probe, amount) }],
    }),
  );
  return data && data !== '0x' ? hexToBigInt(data) : 0n;
}
