import { hexToBigInt } from 'viem';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import type { Hex } from '../../domain/transfer';
import { deliveryProbeCode, erc20ReadAbi, judgeTransferReturn } from '../erc20';
import type { EvmContext } from './context';
import { simulateCall } from './simulate-call';

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
  context: EvmContext,
  from: Hex,
  call: { to: Hex; value: bigint; data?: Hex },
): Promise<{ ok: true } | { ok: false; why: string }> {
  const simulated = await simulateCall(context, from, call);
  return simulated.ok ? judgeTransferReturn(simulated.data) : simulated;
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
