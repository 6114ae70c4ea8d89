import { sql, type Kysely, type Selectable } from 'kysely';
import { nativeAsset, parseAssetRef, type AssetRef, type RegisteredToken } from '../domain/asset';
import type { Hex } from '../domain/transfer';
import type { AssetsTable, Schema } from './schema';

const tokenFromRow = (row: Selectable<AssetsTable>): RegisteredToken => ({
  chainId: Number(row.chain_id),
  address: row.address as Hex,
  alias: row.alias,
  symbol: row.symbol,
  decimals: Number(row.decimals),
  feeOnTransfer: Number(row.fee_on_transfer) === 1,
});

/**
 * Registers a token; false when its address or its alias is taken on the chain (nothing written).
 */
export async function insertToken(
  db: Kysely<Schema>,
  token: RegisteredToken,
  now: Date,
): Promise<boolean> {
  const taken = await db
    .selectFrom('assets')
    .select('address')
    .where('chain_id', '=', token.chainId)
    .where((eb) => eb.or([eb('address', '=', token.address), eb('alias', '=', token.alias)]))
    .executeTakeFirst();
  if (taken) return false;
  await db
    .insertInto('assets')
    .values({
      chain_id: token.chainId,
      address: token.address,
      alias: token.alias,
      symbol: token.symbol,
      decimals: token.decimals,
      fee_on_transfer: token.feeOnTransfer ? 1 : 0,
      created_at: now.toISOString(),
    })
    .execute();
  return true;
}

/** A chain's token by its alias or its (checksummed) address. */
export async function findToken(
  db: Kysely<Schema>,
  chainId: number,
  by: { alias: string } | { address: Hex },
): Promise<RegisteredToken | undefined> {
  let query = db.selectFrom('assets').selectAll().where('chain_id', '=', chainId);
  query =
    'alias' in by ? query.where('alias', '=', by.alias) : query.where('address', '=', by.address);
  const row = await query.executeTakeFirst();
  return row && tokenFromRow(row);
}

export async function listTokens(db: Kysely<Schema>, chainId?: number): Promise<RegisteredToken[]> {
  let query = db.selectFrom('assets').selectAll().orderBy('chain_id').orderBy('alias');
  if (chainId !== undefined) query = query.where('chain_id', '=', chainId);
  return (await query.execute()).map(tokenFromRow);
}

/**
 * An asset as a request names it (`native`, a token's alias, or its address) → what an intent
 * stores (`native` or the token's address) and the token; undefined when no such token is
 * registered on the chain.
 */
export async function resolveAsset(
  db: Kysely<Schema>,
  chainId: number,
  name: string = nativeAsset,
): Promise<{ ref: AssetRef; token?: RegisteredToken } | undefined> {
  if (name === nativeAsset) return { ref: nativeAsset };
  const address = parseAssetRef(name);
  const token = await findToken(
    db,
    chainId,
    address && address !== nativeAsset ? { address } : { alias: name },
  );
  return token && { ref: token.address, token };
}

/** A token as a person names it (alias, decimals), for messages; its address when unregistered. */
export async function tokenNaming(
  db: Kysely<Schema>,
  chainId: number,
  address: string,
): Promise<{ address: string; alias: string; decimals: number }> {
  const token = (await resolveAsset(db, chainId, address))?.token;
  return { address, alias: token?.alias ?? address, decimals: token?.decimals ?? 0 };
}

/** Transfers of `token` recorded `unregistered`: what reached deposit addresses before it was. */
export async function unregisteredDepositsOf(
  db: Kysely<Schema>,
  chainId: number,
  token: string,
): Promise<{ count: number; amount: bigint }> {
  const rows = await db
    .selectFrom('deposits')
    .select('amount')
    .where('chain_id', '=', chainId)
    .where('status', '=', 'unregistered')
    .where(sql<string>`lower(asset)`, '=', token.toLowerCase())
    .execute();
  return { count: rows.length, amount: rows.reduce((sum, row) => sum + BigInt(row.amount), 0n) };
}
