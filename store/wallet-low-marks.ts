import type { Kysely } from 'kysely';
import type { Schema } from './schema';

// When a registered wallet (hot or treasury) went below its low mark in an asset, so that
// operators are told once a dip, however many sweeps see it low.

interface WalletAsset {
  chainId: number;
  address: string;
  /** `native`, or the token's address. */
  asset: string;
}

/** Marks the wallet low in the asset since `now`; true when it was not low before. */
export async function markLow(db: Kysely<Schema>, mark: WalletAsset, now: Date): Promise<boolean> {
  const inserted = await db
    .insertInto('wallet_low_marks')
    .values({
      chain_id: mark.chainId,
      address: mark.address,
      asset: mark.asset,
      low_since: now.toISOString(),
    })
    .onConflict((conflict) => conflict.doNothing())
    .executeTakeFirst();
  return (inserted.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

/** The wallet is at or above its mark in the asset again: the next dip is told again. */
export async function clearLow(db: Kysely<Schema>, mark: WalletAsset): Promise<void> {
  await db
    .deleteFrom('wallet_low_marks')
    .where('chain_id', '=', mark.chainId)
    .where('address', '=', mark.address)
    .where('asset', '=', mark.asset)
    .execute();
}
