import { formatUnits, getAddress, isAddress } from 'viem/utils';
import type { RelayerApiClient } from './api-client';

/** An amount in base units as a person reads it: `250 USDT`, `0.5 ETH`. */
export type AmountInUnits = (chainId: number, asset: string, baseUnits: string) => string;

/**
 * Names assets as `balance` does: the native coin in ETH, a registered token by its alias in whole
 * tokens. An unregistered token stays its address and base units (nothing says its decimals).
 * `asset` is `native`, a token's address, or a book (`native:<chain>`, `erc20:<chain>:<address>`).
 */
export async function amountsInUnits(api: RelayerApiClient): Promise<AmountInUnits> {
  const tokens = new Map(
    (await api.tokens()).map((token) => [`${token.chainId}/${token.address}`, token]),
  );
  return (chainId, asset, baseUnits) => {
    const name = asset.replace(/^(?:erc20|native):\d+:?/, '') || 'native';
    if (name === 'native') return `${formatUnits(BigInt(baseUnits), 18)} ETH`;
    const token = isAddress(name, { strict: false })
      ? tokens.get(`${chainId}/${getAddress(name)}`)
      : undefined;
    return token
      ? `${formatUnits(BigInt(baseUnits), token.decimals)} ${token.alias}`
      : `${baseUnits} (base units of ${name})`;
  };
}
