import type { Kysely } from 'kysely';
import type { WalletRole } from '../domain/custody';
import type { Database } from './database';
import type { Schema } from './schema';

/**
 * The nonce domain of one sending wallet on one chain. Nonces are handed out here, under the
 * wallet row's lock, in the same transaction that stores the signed transaction using it: a
 * nonce is never handed out without a signed transaction to fill it. Gaps can still come from
 * outside (a transaction sent with the wallet elsewhere, then dropped): see fill-nonce-gap.ts.
 */
interface Wallet {
  chainId: number;
  address: string;
}

/** The wallet's next nonce, its row locked until the transaction ends; undefined if unknown. */
async function lockWallet(
  database: Database,
  trx: Kysely<Schema>,
  wallet: Wallet,
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
  return row && Number(row.next_nonce);
}

async function setNextNonce(trx: Kysely<Schema>, wallet: Wallet, nextNonce: number): Promise<void> {
  await trx
    .updateTable('wallets')
    .set({ next_nonce: nextNonce })
    .where('chain_id', '=', wallet.chainId)
    .where('address', '=', wallet.address)
    .execute();
}

/**
 * Makes the wallet known to the relayer (or catches it up with the chain) at worker start, in
 * the role the configuration gives it now (a wallet made the treasury stops being chosen).
 */
export async function registerWallet(
  database: Database,
  wallet: Wallet,
  chainPendingNonce: number,
  role: WalletRole = 'hot',
): Promise<number> {
  return database.transaction(async (trx) => {
    const stored = await lockWallet(database, trx, wallet);
    if (stored === undefined) {
      await trx
        .insertInto('wallets')
        .values({
          chain_id: wallet.chainId,
          address: wallet.address,
          next_nonce: chainPendingNonce,
          role,
        })
        .execute();
      return chainPendingNonce;
    }
    await trx
      .updateTable('wallets')
      .set({ role })
      .where('chain_id', '=', wallet.chainId)
      .where('address', '=', wallet.address)
      .where('role', '!=', role)
      .execute();
    // The chain is ahead when the wallet was used outside the relayer: never hand out a nonce
    // the chain already counted. Behind is normal (our signed transactions not yet broadcast).
    if (chainPendingNonce > stored) await setNextNonce(trx, wallet, chainPendingNonce);
    return Math.max(stored, chainPendingNonce);
  });
}

/**
 * Takes the wallet's next nonce; call inside the transaction that persists the signed tx.
 * `atLeast`: the chain's pending nonce when the wallet is known to have been used elsewhere.
 */
export async function allocateNonce(
  database: Database,
  trx: Kysely<Schema>,
  wallet: Wallet,
  atLeast = 0,
): Promise<number | undefined> {
  const stored = await lockWallet(database, trx, wallet);
  if (stored === undefined) return undefined;
  const nonce = Math.max(stored, atLeast);
  await setNextNonce(trx, wallet, nonce + 1);
  return nonce;
}
