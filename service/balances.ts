import { ledgerAssetOf, nativeUnits } from '../domain/asset';
import { chainOfBook, isNativeBook } from '../domain/ledger-book';
import { listTokens } from '../store/assets';
import type { Database } from '../store/database';
import { tenantBalances } from '../store/ledger';

/** One of a tenant's books as people name it: an asset on a chain, with its decimals. */
export interface AssetBalance {
  /** `native`, or the alias of a token an operator registered. */
  asset: string;
  /** The chain the book counts on: what was deposited there pays out only there. */
  chainId: number;
  decimals: number;
  /** Base units the tenant can pay out now. */
  available: bigint;
  /** Base units held for its open intents. */
  held: bigint;
}

/** Every book the tenant has, by chain, the native coin first on each. */
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
      const chainId = chainOfBook(book) ?? 0;
      if (isNativeBook(book)) {
        return { asset: 'native', chainId, decimals: nativeUnits.decimals, ...balance };
      }
      // A token book outlives nothing that registered it; shown in base units if it ever did.
      return { asset: book, chainId, decimals: 0, ...balance };
    })
    .sort(
      (a, b) =>
        a.chainId - b.chainId ||
        Number(b.asset === 'native') - Number(a.asset === 'native') ||
        a.asset.localeCompare(b.asset),
    );
}
