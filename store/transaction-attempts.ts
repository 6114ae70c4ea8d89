import type { Kysely } from 'kysely';
import { type Intent } from '../domain/intent';
import { signingWallet } from '../domain/signed-intent';
import { paymentOf } from '../domain/intent-payment';
import type { Hex, SignedTransfer, TransferPlan } from '../domain/transfer';
import { fromTimestamp, type AttemptCause, type Schema } from './schema';

export interface TransactionAttempt extends SignedTransfer {
  intentId: string;
  /** 1 for the first signature, then one more per replacement or new nonce. */
  attempt: number;
  nonce: number;
  gas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  cause: AttemptCause;
  createdAt: Date;
}

/** Oldest first. */
export async function listAttempts(
  db: Kysely<Schema>,
  intentId: string,
): Promise<TransactionAttempt[]> {
  const rows = await db
    .selectFrom('transaction_attempts')
    .selectAll()
    .where('intent_id', '=', intentId)
    .orderBy('attempt')
    .execute();
  return rows.map((row) => ({
    intentId: row.intent_id,
    attempt: row.attempt,
    nonce: Number(row.nonce),
    txHash: row.tx_hash as Hex,
    rawTx: row.raw_tx as Hex,
    gas: BigInt(row.gas),
    maxFeePerGas: BigInt(row.max_fee_per_gas),
    maxPriorityFeePerGas: BigInt(row.max_priority_fee_per_gas),
    cause: row.cause,
    createdAt: fromTimestamp(row.created_at),
  }));
}

/** Call in the transaction that makes the attempt the intent's current transaction. */
export async function insertAttempt(
  trx: Kysely<Schema>,
  attempt: Omit<TransactionAttempt, 'createdAt'>,
  now: Date,
): Promise<void> {
  await trx
    .insertInto('transaction_attempts')
    .values({
      intent_id: attempt.intentId,
      attempt: attempt.attempt,
      nonce: attempt.nonce,
      tx_hash: attempt.txHash,
      raw_tx: attempt.rawTx,
      gas: attempt.gas.toString(),
      max_fee_per_gas: attempt.maxFeePerGas.toString(),
      max_priority_fee_per_gas: attempt.maxPriorityFeePerGas.toString(),
      cause: attempt.cause,
      created_at: now.toISOString(),
    })
    .execute();
}

/** The intent's current attempt takes its nonce back: past a deadline, only that goes out. */
export const currentTakesNonceBack = (attempts: readonly TransactionAttempt[]): boolean =>
  attempts.length > 0 && takesNonceBack(attempts, attempts.at(-1)!);

/**
 * Whether `attempt` takes its nonce back rather than pays: a cancel, or a fee bump of one. Once a
 * nonce is cancelled nothing at it is signed to pay again, so every later attempt there is one.
 */
export const takesNonceBack = (
  attempts: readonly TransactionAttempt[],
  attempt: TransactionAttempt,
): boolean =>
  attempts.some(
    (earlier) =>
      earlier.cause === 'cancel' &&
      earlier.nonce === attempt.nonce &&
      earlier.attempt <= attempt.attempt,
  );

/**
 * The transfer an attempt signed (a cancel: nothing, to the wallet itself), to plan its
 * replacement.
 */
export const planOf = (
  intent: Intent,
  attempts: readonly TransactionAttempt[],
  attempt: TransactionAttempt,
): TransferPlan => ({
  ...(takesNonceBack(attempts, attempt)
    ? { from: signingWallet(intent), to: signingWallet(intent), value: 0n }
    : paymentOf(intent, signingWallet(intent))),
  gas: attempt.gas,
  maxFeePerGas: attempt.maxFeePerGas,
  maxPriorityFeePerGas: attempt.maxPriorityFeePerGas,
});

/** Whether any attempt of any intent of this wallet was signed with `nonce`. */
export async function nonceHasAttempt(
  db: Kysely<Schema>,
  wallet: { chainId: number; address: string },
  nonce: number,
): Promise<boolean> {
  const row = await db
    .selectFrom('transaction_attempts')
    .innerJoin('intents', 'intents.id', 'transaction_attempts.intent_id')
    .select('transaction_attempts.intent_id')
    .where('intents.chain_id', '=', wallet.chainId)
    .where('intents.from_address', '=', wallet.address)
    .where('transaction_attempts.nonce', '=', nonce)
    .executeTakeFirst();
  return row !== undefined;
}

/** The other intent, if any, that signed `txHash` or holds it as its transaction. */
export async function intentClaimingTransaction(
  db: Kysely<Schema>,
  txHash: string,
  exceptIntentId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('transaction_attempts')
    .select('intent_id')
    .where('tx_hash', '=', txHash)
    .where('intent_id', '!=', exceptIntentId)
    .unionAll((union) =>
      union
        .selectFrom('intents')
        .select('id as intent_id')
        .where('tx_hash', '=', txHash)
        .where('id', '!=', exceptIntentId),
    )
    .executeTakeFirst();
  return row?.intent_id;
}
