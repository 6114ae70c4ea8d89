import type { Kysely } from 'kysely';
import type { Hex, SignedTransfer } from '../domain/transfer';
import type { Schema } from './schema';

interface Wallet {
  chainId: number;
  address: string;
}

/** The fill signed for this nonce, if any: re-sending it is the only fill the nonce ever gets. */
export async function findNonceFill(
  db: Kysely<Schema>,
  wallet: Wallet,
  nonce: number,
): Promise<SignedTransfer | undefined> {
  const row = await db
    .selectFrom('nonce_fills')
    .select(['tx_hash', 'raw_tx'])
    .where('chain_id', '=', wallet.chainId)
    .where('address', '=', wallet.address)
    .where('nonce', '=', nonce)
    .executeTakeFirst();
  return row && { txHash: row.tx_hash as Hex, rawTx: row.raw_tx as Hex };
}

/** Keeps the first fill stored for the nonce (a concurrent one loses) and returns it. */
export async function storeNonceFill(
  db: Kysely<Schema>,
  wallet: Wallet,
  nonce: number,
  fill: SignedTransfer,
  now: Date,
): Promise<SignedTransfer> {
  await db
    .insertInto('nonce_fills')
    .values({
      chain_id: wallet.chainId,
      address: wallet.address,
      nonce,
      tx_hash: fill.txHash,
      raw_tx: fill.rawTx,
      created_at: now.toISOString(),
    })
    .onConflict((conflict) => conflict.columns(['chain_id', 'address', 'nonce']).doNothing())
    .execute();
  return (await findNonceFill(db, wallet, nonce))!;
}
