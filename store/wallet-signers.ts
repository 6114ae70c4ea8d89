import type { Kysely } from 'kysely';
import type { Schema } from './schema';

/** A wallet added at run time: its address and where its key is (`kms:…` or `remote:…`). */
export interface AddedWallet {
  address: string;
  signer: string;
}

/**
 * Adds the wallet unless it is there; answers what is stored for the address now (the same
 * signer: added or already there; another: left as it was).
 */
export async function addWalletSigner(
  db: Kysely<Schema>,
  wallet: AddedWallet,
  now: Date,
): Promise<AddedWallet> {
  await db
    .insertInto('wallet_signers')
    .values({ ...wallet, added_at: now.toISOString() })
    .onConflict((conflict) => conflict.column('address').doNothing())
    .execute();
  return db
    .selectFrom('wallet_signers')
    .select(['address', 'signer'])
    .where('address', '=', wallet.address)
    .executeTakeFirstOrThrow();
}

/** Every wallet added at run time, oldest first. */
export const addedWallets = (db: Kysely<Schema>): Promise<AddedWallet[]> =>
  db.selectFrom('wallet_signers').select(['address', 'signer']).orderBy('added_at').execute();
