import type { Kysely } from 'kysely';
import type { Database } from './database';
import type { Schema } from './schema';

/**
 * The nonce domain of one sending wallet on one chain. Nonces are handed out here, under the
 * wallet row's lock, in the same transaction that stores the signed transaction using it: a
 * nonce is never handed out without a signed transaction to fill it, so there are no gaps.
 */
export async function registerWallet(
  database: Database,
  wallet: { chainId: number; address: string },
  chainPendingNonce: number,
): Promise<number> {
  return database.transaction(async (trx) => {
    const row = await database
      .forUpdate(
        trx
          .selectFrom('wallets')
          .select('next_nonce')
          .where('chain_id', '=', wallet.chainId)
          .where('address', '=', wallet.address),
      )
      .executeTakeFirst();
    if (!row) {
      await trx
        .insertInto('wallets')
        .values({
          chain_id: wallet.chainId,
          address: wallet.address,
          next_nonce: chainPendingNonce,
        })
        .execute();
      return chainPendingNonce;
    }
    // The chain is ahead when the wallet was used outside the relayer: never hand out a nonce
    // the chain already counted. Behind is normal (our signed transactions not yet broadcast).
    const next = Math.max(Number(row.next_nonce), chainPendingNonce);
    if (next !== Number(row.next_nonce)) {
      await trx
        .updateTable('wallets')
        .set({ next_nonce: next })
        .where('chain_id', '=', wallet.chainId)
        .where('address', '=', wallet.address)
        .execute();
    }
    return next;
  });
}

/** Takes the wallet's next nonce; call inside the transaction that persists the signed tx. */
export async function allocateNonce(
  database: Database,
  trx: Kysely<Schema>,
  wallet: { chainId: number; address: string },
): Promise<number | undefined> {
  const row = await database
    .forUpdate(
      trx
        .selectFrom('wallets')
        .select('next_nonce')
        .where('chain_id', '=', wallet.chainId)
        .where('address', '=', wallet.address),
    )
    .executeTakeFirst();
  if (!row) return undefined;
  const nonce = Number(row.next_nonce);
  await trx
    .updateTable('wallets')
    .set({ next_nonce: nonce + 1 })
    .where('chain_id', '=', wallet.chainId)
    .where('address', '=', wallet.address)
    .execute();
  return nonce;
}
