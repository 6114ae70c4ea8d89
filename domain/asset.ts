import { encodeFunctionData, formatUnits, getAddress, isAddress, parseUnits } from 'viem/utils';
import type { Hex } from './transfer';
import { nativeBookOf } from './ledger-book';
import { plainDecimal } from './plain-decimal';

/**
 * What an intent pays in: the chain's native coin, or an ERC-20 token registered for the chain
 * (its contract address). Amounts are always in the asset's base units (wei; a token's smallest
 * unit, 10^-decimals).
 */
export type AssetRef = 'native' | Hex;

export const nativeAsset = 'native' as const;

export const isNative = (asset: AssetRef): asset is 'native' => asset === nativeAsset;

/** How native amounts read to people, on every chain (the CLI's --eth, LOW_BALANCE_ETH). */
export const nativeUnits = { symbol: 'ETH', decimals: 18 } as const;

/**
 * An amount of base units as a person reads it (`47.3 ETH`, `12.5 USDC`): in a registered
 * token's units by its alias, else the native coin's.
 */
export const shownIn =
  (token: Pick<RegisteredToken, 'alias' | 'decimals'> | undefined) =>
  (amount: bigint): string =>
    token
      ? `${formatUnits(amount, token.decimals)} ${token.alias}`
      : `${formatUnits(amount, nativeUnits.decimals)} ${nativeUnits.symbol}`;

/** A token as registered for a chain: read from the chain once, stored, never guessed by symbol. */
export interface RegisteredToken {
  chainId: number;
  address: Hex;
  /** Unique per chain (symbols are not: USDC and USDC.e). */
  alias: string;
  symbol: string;
  decimals: number;
  /**
   * Delivers less than sent (a fee taken on transfer): a shortfall is then expected, not a fault.
   */
  feeOnTransfer: boolean;
}

/** The book an asset on a chain counts in (domain/ledger-book.ts): every book is per chain. */
export function ledgerAssetOf(chainId: number, asset: AssetRef): string {
  return isNative(asset) ? nativeBookOf(chainId) : `erc20:${chainId}:${getAddress(asset)}`;
}

/** `native`, or a checksummed token address: the form stored on an intent. */
export function parseAssetRef(value: string): AssetRef | undefined {
  if (value === nativeAsset) return nativeAsset;
  return isAddress(value, { strict: false }) ? getAddress(value) : undefined;
}

export const erc20TransferAbi = [
  {
    type: 'function',
    name: 'transfer',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'amount', type: 'uint256' },
    ],
    outputs: [{ name: '', type: 'bool' }],
  },
] as const;

/**
 * The call that pays `amount` of `asset` to `to`: a plain value transfer for the native coin, the
 * token's `transfer(to, amount)` for an ERC-20 (sent to the token, no value).
 */
export function paymentCall(
  asset: AssetRef,
  to: Hex,
  amount: bigint,
): { to: Hex; value: bigint; data?: Hex } {
  if (isNative(asset)) return { to, value: amount };
  return {
    to: asset,
    value: 0n,
    data: encodeFunctionData({
      abi: erc20TransferAbi,
      functionName: 'transfer',
      args: [to, amount],
    }),
  };
}

/**
 * A decimal amount of an asset (`12.5` of a 6-decimal token) in base units; undefined when it is
 * not a plain positive decimal or has more fractional digits than the asset has.
 */
export function baseUnitsOf(decimal: string, decimals: number): bigint | undefined {
  const match = plainDecimal.exec(decimal.trim());
  if (!match) return undefined;
  if ((match[2]?.length ?? 0) > decimals) return undefined;
  return parseUnits(decimal.trim(), decimals);
}
