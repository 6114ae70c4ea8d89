import type { Kysely } from 'kysely';
import { IntentStatus } from '../domain/intent';
import type { Hex } from '../domain/transfer';
import type { Schema } from './schema';

// The transactions of the payments in flight on a chain, as the block follower matches them
// against new blocks (workers/block-follower.ts).

/** The newest transaction of a payment waiting for its confirmations. */
export interface AttemptInFlight {
  intentId: string;
  txHash: Hex;
  maxFeePerGas: bigint;
}

/** Whether any payment on the chain waits for its confirmations (else nothing to follow). */
export async function anyConfirming(db: Kysely<Schema>, chainId: number): Promise<boolean> {
  const row = await db
    .selectFrom('intents')
    .select('id')
    .where('status', '=', IntentStatus.confirming)
    .where('chain_id', '=', chainId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The payments waiting for confirmations on the chain that sent one of `txHashes`. */
export async function confirmingIntentsThatSent(
  db: Kysely<Schema>,
  chainId: number,
  txHashes: readonly Hex[],
): Promise<string[]> {
  if (txHashes.length === 0) return [];
  const rows = await db
    .selectFrom('transaction_attempts')
    .innerJoin('intents', 'intents.id', 'transaction_attempts.intent_id')
    .select('intents.id')
    .distinct()
    .where('intents.chain_id', '=', chainId)
    .where('intents.status', '=', IntentStatus.confirming)
    .where(
      'transaction_attempts.tx_hash',
      'in',
      txHashes.map((hash) => hash.toLowerCase()),
    )
    .execute();
  return rows.map((row) => row.id);
}

/** The newest transaction of each payment waiting for its confirmations on the chain. */
export async function newestAttemptsInFlight(
  db: Kysely<Schema>,
  chainId: number,
): Promise<AttemptInFlight[]> {
  const rows = await db
    .selectFrom('transaction_attempts')
    .innerJoin('intents', 'intents.id', 'transaction_attempts.intent_id')
    .select([
      'intents.id as intentId',
      'transaction_attempts.attempt',
      'transaction_attempts.tx_hash as txHash',
      'transaction_attempts.max_fee_per_gas as maxFeePerGas',
    ])
    .where('intents.chain_id', '=', chainId)
    .where('intents.status', '=', IntentStatus.confirming)
    .orderBy('transaction_attempts.attempt')
    .execute();
  const newest = new Map<string, AttemptInFlight>();
  for (const row of rows) {
    newest.set(row.intentId, {
      intentId: row.intentId,
      txHash: row.txHash as Hex,
      maxFeePerGas: BigInt(row.maxFeePerGas),
    });
  }
  return [...newest.values()];
}

/**
 * The newest transaction of the payment in flight whose newest transaction holds `nonce` of the
 * wallet: the bytes that payment's own look would send again.
 */
export async function inFlightAttemptAt(
  db: Kysely<Schema>,
  wallet: { chainId: number; address: string },
  nonce: number,
): Promise<{ intentId: string; attempt: number; txHash: Hex; rawTx: Hex } | undefined> {
  const rows = await db
    .selectFrom('transaction_attempts')
    .innerJoin('intents', 'intents.id', 'transaction_attempts.intent_id')
    .select([
      'intents.id as intentId',
      'intents.nonce as intentNonce',
      'transaction_attempts.attempt',
      'transaction_attempts.nonce',
      'transaction_attempts.tx_hash as txHash',
      'transaction_attempts.raw_tx as rawTx',
    ])
    .where('intents.chain_id', '=', wallet.chainId)
    .where('intents.from_address', '=', wallet.address)
    .where('intents.status', '=', IntentStatus.confirming)
    .where('transaction_attempts.nonce', '=', nonce)
    .orderBy('transaction_attempts.attempt', 'desc')
    .execute();
  const newest = rows.find((row) => Number(row.intentNonce) === nonce);
  return (
    newest && {
      intentId: newest.intentId,
      attempt: newest.attempt,
      txHash: newest.txHash as Hex,
      rawTx: newest.rawTx as Hex,
    }
  );
}

/** Claims the one re-send of a wallet's nonce for `block`, fleet-wide: false if taken. */
export async function claimLineRepair(
  db: Kysely<Schema>,
  repair: { chainId: number; address: string; nonce: number; block: bigint; txHash: Hex },
): Promise<boolean> {
  const result = await db
    .insertInto('line_repairs')
    .values({
      chain_id: repair.chainId,
      address: repair.address,
      nonce: repair.nonce,
      block_number: repair.block.toString(),
      tx_hash: repair.txHash,
    })
    .onConflict((conflict) => conflict.doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}
