import { ledgerAssetOf, nativeAsset, nativeUnits } from '../domain/asset';
import { listTokens } from '../store/assets';
import type { Database } from '../store/database';
import { tenantBalances } from '../store/ledger';

/** One of a tenant's books as people name it: `native` or a token's alias, with its decimals. */
export interface AssetBalance {
  /** `native`, or the alias of a token an operator registered. */
  asset: string;
  /** A token's chain; null for the native coin (one book whatever the chain). */
  chainId: number | null;
  decimals: number;
  /** Base units the tenant can pay out now. */
  available: bigint;
  /** Base units held for its open intents. */
  held: bigint;
}

/** Every book the tenant has, the native coin first. */
export async function balancesOf(database: Database, tenantId: string): Promise<AssetBalance[]> {
  const [books, tokens] = await Promise.all([
    tenantBalances(database.kysely, tenantId),
    listTokens(database.kysely),
  ]);
  const tokenOf = new Map(
    tokens.map((token) => [ledgerAssetOf(token.chainId, token.address), token]),
  );
  return [...books]
    .map(([book, balance]): AssetBalance => {
      const token = tokenOf.get(book);
      if (token) {
        return { asset: token.alias, chainId: token.chainId, decimals: token.decimals, ...balance };
      }
      // A token book outlives nothing that registered it; shown in base units if it ever did.
      const decimals = book === nativeAsset ? nativeUnits.decimals : 0;
      return { asset: book, chainId: null, decimals, ...balance };
    })
    .sort((a, b) => Number(b.asset === nativeAsset) - Number(a.asset === nativeAsset));
}
