import type { Kysely } from 'kysely';
import type { Schema } from './schema';

/**
 * When a registered wallet (hot or treasury) went below its low mark, so that operators are told
 * once a dip, however many sweeps see it low.
 */
interface Wallet {
  chainId: number;
  address: string;
}

/** Marks the wallet low since `now`; true when it was not low before (it just went low). */
export async function markLow(db: Kysely<Schema>, wallet: Wallet, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('wallets')
    .set({ low_since: now.toISOString() })
    .where('chain_id', '=', wallet.chainId)
    .where('address', '=', wallet.address)
    .where('low_since', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The wallet is at or above its mark again: the next dip is told again. */
export async function clearLow(db: Kysely<Schema>, wallet: Wallet): Promise<void> {
  await db
    .updateTable('wallets')
    .set({ low_since: null })
    .where('chain_id', '=', wallet.chainId)
    .where('address', '=', wallet.address)
    .where('low_since', 'is not', null)
    .execute();
}
