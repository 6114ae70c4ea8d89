import type { Kysely } from 'kysely';
import { nativeAsset } from '../domain/asset';
import type { WalletLane } from '../domain/wallet-choice';
import type { Schema } from './schema';

/** What the chain says of the hot wallets, read before the signing lock. */
export interface LaneFacts {
  /** Every hot wallet a choice may take, with its balance. */
  balances: ReadonlyMap<`0x${string}`, bigint>;
  /** For a token intent: the token, and what each of those wallets holds of it. */
  token?: { address: `0x${string}`; balances: ReadonlyMap<`0x${string}`, bigint> };
  /** Wallet → the intent in review whose unused nonce its lane waits behind. */
  blockedBy: ReadonlyMap<string, string>;
}

/**
 * The lanes of the wallets in `facts` as the store sees them: nonces in flight (our signed
 * intents not ended) and what the transactions not yet seen mined may still take (value + gas ×
 * fee cap of the current attempt, native; and of `facts.token`, its amounts).
 */
export async function walletLanes(
  db: Kysely<Schema>,
  chainId: number,
  { balances, blockedBy: blocked, token }: LaneFacts,
): Promise<WalletLane[]> {
  const addresses = [...balances.keys()];
  if (addresses.length === 0) return [];
  const inFlight = await db
    .selectFrom('intents')
    .leftJoin('transaction_attempts', 'transaction_attempts.tx_hash', 'intents.tx_hash')
    .select([
      'intents.from_address',
      'intents.asset',
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
    const unmined = mine.filter((row) => row.block_number === null);
    const committed = unmined.reduce(
      (sum, row) =>
        sum +
        (row.asset === nativeAsset ? BigInt(row.amount) : 0n) +
        BigInt(row.gas ?? 0) * BigInt(row.max_fee_per_gas ?? 0),
      0n,
    );
    const blockedBy = blocked.get(address);
    return {
      address,
      pending: mine.length,
      balance: balances.get(address)!,
      committed,
      ...(token && {
        token: {
          balance: token.balances.get(address) ?? 0n,
          committed: unmined
            .filter((row) => row.asset === token.address)
            .reduce((sum, row) => sum + BigInt(row.amount), 0n),
        },
      }),
      ...(blockedBy !== undefined && { blockedBy }),
    };
  });
}

/**
 * Wallets with an intent in review that holds a nonce: wallet → that intent (the lowest nonce).
 * Its lane waits behind it while the nonce is unused.
 */
export async function walletsInReview(
  db: Kysely<Schema>,
  chainId: number,
): Promise<Map<string, { intentId: string; nonce: number }>> {
  const rows = await db
    .selectFrom('intents')
    .select(['from_address', 'id', 'nonce'])
    .where('chain_id', '=', chainId)
    .where('status', '=', 'needs_review')
    .where('nonce', 'is not', null)
    .orderBy('nonce', 'desc')
    .execute();
  return new Map(
    rows.map((row) => [row.from_address!, { intentId: row.id, nonce: Number(row.nonce) }]),
  );
}
