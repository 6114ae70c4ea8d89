import type { Kysely } from 'kysely';
import type { WalletLane } from '../domain/wallet-choice';
import type { Schema } from './schema';

/**
 * The lanes of `wallets` on a chain as the store sees them: nonces in flight (our signed intents
 * not ended) and what the transactions not yet seen mined may still take (value + gas × fee cap
 * of the current attempt). Balances come from the chain.
 */
export async function walletLanes(
  db: Kysely<Schema>,
  chainId: number,
  balances: ReadonlyMap<`0x${string}`, bigint>,
): Promise<WalletLane[]> {
  const addresses = [...balances.keys()];
  if (addresses.length === 0) return [];
  const inFlight = await db
    .selectFrom('intents')
    .leftJoin('transaction_attempts', 'transaction_attempts.tx_hash', 'intents.tx_hash')
    .select([
      'intents.from_address',
      'intents.amount',
      'intents.block_number',
      'transaction_attempts.gas',
      'transaction_attempts.max_fee_per_gas',
    ])
    .where('intents.chain_id', '=', chainId)
    .where('intents.status', 'in', ['signed', 'confirming'])
    .where('intents.from_address', 'in', addresses)
    .execute();
  return addresses.map((address) => {
    const mine = inFlight.filter((row) => row.from_address === address);
    const committed = mine
      .filter((row) => row.block_number === null)
      .reduce(
        (sum, row) =>
          sum + BigInt(row.amount) + BigInt(row.gas ?? 0) * BigInt(row.max_fee_per_gas ?? 0),
        0n,
      );
    return { address, pending: mine.length, balance: balances.get(address)!, committed };
  });
}
