import { sql, type Kysely, type Migration } from 'kysely';
import { parseTransaction } from 'viem';
import type { MigrationContext } from './migration-context';

export const transactionAttemptsNonceFills = ({
  amount,
  timestamp,
}: MigrationContext): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('transaction_attempts')
      .addColumn('intent_id', 'text', (c) => c.notNull().references('intents.id'))
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('nonce', 'integer', (c) => c.notNull())
      .addColumn('tx_hash', 'text', (c) => c.notNull().unique())
      .addColumn('raw_tx', 'text', (c) => c.notNull())
      .addColumn('gas', amount, (c) => c.notNull())
      .addColumn('max_fee_per_gas', amount, (c) => c.notNull())
      .addColumn('max_priority_fee_per_gas', amount, (c) => c.notNull())
      .addColumn('cause', 'text', (c) => c.notNull())
      .addColumn('created_at', timestamp, (c) => c.notNull())
      .addPrimaryKeyConstraint('transaction_attempts_pk', ['intent_id', 'attempt'])
      .execute();
    // Intents signed before attempts were kept: their one transaction is attempt 1.
    const signed = await sql<{
      id: string;
      nonce: number;
      tx_hash: string;
      raw_tx: string;
      updated_at: string;
    }>`
        select id, nonce, tx_hash, raw_tx, updated_at from intents where raw_tx is not null`.execute(
      db,
    );
    for (const intent of signed.rows) {
      const tx = parseTransaction(intent.raw_tx as `0x${string}`);
      await sql`insert into transaction_attempts
          (intent_id, attempt, nonce, tx_hash, raw_tx, gas, max_fee_per_gas, max_priority_fee_per_gas, cause, created_at)
          values (${intent.id}, 1, ${intent.nonce}, ${intent.tx_hash}, ${intent.raw_tx},
            ${String(tx.gas ?? 0n)}, ${String(tx.maxFeePerGas ?? 0n)},
            ${String(tx.maxPriorityFeePerGas ?? 0n)}, 'first',
            ${new Date(intent.updated_at).toISOString()})`.execute(db);
    }
    await db.schema
      .createTable('nonce_fills')
      .addColumn('chain_id', 'integer', (c) => c.notNull())
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('nonce', 'integer', (c) => c.notNull())
      .addColumn('tx_hash', 'text', (c) => c.notNull())
      .addColumn('raw_tx', 'text', (c) => c.notNull())
      .addColumn('created_at', timestamp, (c) => c.notNull())
      .addPrimaryKeyConstraint('nonce_fills_pk', ['chain_id', 'address', 'nonce'])
      .execute();
  },
});
