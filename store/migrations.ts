import { Migrator, sql, type ColumnDefinitionBuilder, type Kysely, type Migration } from 'kysely';
import { parseTransaction } from 'viem';
import { rebookNativePerChain, type RebookContext } from './rebook-native-per-chain';
import { operatorOwner } from '../domain/custody';
import type { Dialect, Schema } from './schema';

/**
 * Migrations live in code, in order, never edited once released: a new change is a new entry.
 * Column types differ per dialect only where SQLite cannot hold the value (wei does not fit in
 * 64 bits, so SQLite keeps amounts as TEXT and the ledger does its arithmetic with bigint).
 */
function migrations(dialect: Dialect, context: RebookContext): Record<string, Migration> {
  const amount = dialect === 'postgres' ? sql`numeric(78, 0)` : sql`text`;
  const timestamp = dialect === 'postgres' ? sql`timestamptz` : sql`text`;
  return {
    '0001_intents_ledger_wallets': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('tenants')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('created_at', timestamp, (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('ledger_accounts')
          .addColumn('owner', 'text', (c) => c.notNull())
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('balance', amount, (c) => c.notNull())
          .addPrimaryKeyConstraint('ledger_accounts_pk', ['owner', 'kind'])
          .execute();
        await db.schema
          .createTable('postings')
          .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
            c.primaryKey().notNull(),
          )
          .addColumn('entry', 'text', (c) => c.notNull())
          .addColumn('intent_id', 'text')
          .addColumn('owner', 'text', (c) => c.notNull())
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('amount', amount, (c) => c.notNull())
          .addColumn('created_at', timestamp, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('postings_intent').on('postings').column('intent_id').execute();
        await db.schema
          .createTable('holds')
          .addColumn('intent_id', 'text', (c) => c.primaryKey())
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
          .addColumn('amount', amount, (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('created_at', timestamp, (c) => c.notNull())
          .addColumn('updated_at', timestamp, (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('wallets')
          .addColumn('chain_id', 'integer', (c) => c.notNull())
          .addColumn('address', 'text', (c) => c.notNull())
          .addColumn('next_nonce', 'integer', (c) => c.notNull())
          .addPrimaryKeyConstraint('wallets_pk', ['chain_id', 'address'])
          .execute();
        await db.schema
          .createTable('intents')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
          .addColumn('chain_id', 'integer', (c) => c.notNull())
          .addColumn('from_address', 'text', (c) => c.notNull())
          .addColumn('to_address', 'text', (c) => c.notNull())
          .addColumn('amount', amount, (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('version', 'integer', (c) => c.notNull())
          .addColumn('nonce', 'integer')
          .addColumn('tx_hash', 'text', (c) => c.unique())
          .addColumn('raw_tx', 'text')
          .addColumn('block_number', 'bigint')
          .addColumn('reason', 'text')
          .addColumn('created_at', timestamp, (c) => c.notNull())
          .addColumn('updated_at', timestamp, (c) => c.notNull())
          // A nonce belongs to exactly one intent: the database refuses a second owner.
          .addUniqueConstraint('intents_wallet_nonce', ['chain_id', 'from_address', 'nonce'])
          .execute();
        await db.schema.createIndex('intents_status').on('intents').column('status').execute();
        await db.schema
          .createIndex('intents_tenant_status')
          .on('intents')
          .columns(['tenant_id', 'status'])
          .execute();
      },
    },
    '0002_api_keys_audit_tenant_limits': {
      async up(db: Kysely<unknown>) {
        // null: the relayer's default per-tenant limit applies.
        await db.schema.alterTable('tenants').addColumn('max_in_flight', 'integer').execute();
        await db.schema
          .createTable('api_keys')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('role', 'text', (c) => c.notNull())
          .addColumn('tenant_id', 'text', (c) => c.references('tenants.id'))
          .addColumn('label', 'text', (c) => c.notNull())
          .addColumn('secret_sha256', 'text', (c) => c.notNull())
          .addColumn('created_at', timestamp, (c) => c.notNull())
          .addColumn('revoked_at', timestamp)
          .execute();
        await db.schema
          .createTable('audit_log')
          .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
            c.primaryKey().notNull(),
          )
          .addColumn('intent_id', 'text', (c) => c.notNull().references('intents.id'))
          .addColumn('action', 'text', (c) => c.notNull())
          .addColumn('actor', 'text', (c) => c.notNull())
          .addColumn('detail', 'text', (c) => c.notNull())
          .addColumn('created_at', timestamp, (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('audit_log_intent')
          .on('audit_log')
          .column('intent_id')
          .execute();
        // A tenant's Idempotency-Key names one intent for good.
        await db.schema.alterTable('intents').addColumn('idempotency_key', 'text').execute();
        await db.schema
          .createIndex('intents_tenant_idempotency_key')
          .on('intents')
          .columns(['tenant_id', 'idempotency_key'])
          .unique()
          .execute();
        // The list endpoint pages through a tenant's intents newest first.
        await db.schema
          .createIndex('intents_tenant_created')
          .on('intents')
          .columns(['tenant_id', 'created_at', 'id'])
          .execute();
      },
    },
    '0003_batches': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('batches')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
          .addColumn('mode', 'text', (c) => c.notNull())
          .addColumn('concurrency', 'integer', (c) => c.notNull())
          .addColumn('item_count', 'integer', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('cause', 'text')
          .addColumn('idempotency_key', 'text', (c) => c.notNull())
          .addColumn('request_sha256', 'text', (c) => c.notNull())
          .addColumn('created_at', timestamp, (c) => c.notNull())
          .addColumn('updated_at', timestamp, (c) => c.notNull())
          .addUniqueConstraint('batches_tenant_idempotency_key', ['tenant_id', 'idempotency_key'])
          .execute();
        await db.schema
          .createTable('batch_items')
          .addColumn('batch_id', 'text', (c) => c.notNull().references('batches.id'))
          .addColumn('item_index', 'integer', (c) => c.notNull())
          .addColumn('chain_id', 'integer', (c) => c.notNull())
          .addColumn('from_address', 'text', (c) => c.notNull())
          .addColumn('to_address', 'text', (c) => c.notNull())
          .addColumn('amount', amount, (c) => c.notNull())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('intent_id', 'text', (c) => c.unique().references('intents.id'))
          .addColumn('outcome', 'text')
          .addColumn('error_code', 'text')
          .addColumn('error_message', 'text')
          .addColumn('started_at', timestamp)
          .addColumn('finished_at', timestamp)
          .addPrimaryKeyConstraint('batch_items_pk', ['batch_id', 'item_index'])
          .execute();
      },
    },
    '0004_transaction_attempts_nonce_fills': {
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
    },
    '0005_wallet_chosen_at_signing': {
      async up(db: Kysely<unknown>) {
        // An intent (or batch item) that names no wallet gets one when it is signed.
        for (const table of ['intents', 'batch_items']) {
          await allowNull(db, dialect, table, 'from_address');
        }
      },
    },
    '0006_wallet_pools': {
      async up(db: Kysely<unknown>) {
        // A retired wallet signs nothing new and finishes what it has.
        await db.schema.alterTable('wallets').addColumn('retired_at', timestamp).execute();
        // The wallets a tenant's intents may be sent from, per chain; none listed: every wallet.
        await db.schema
          .createTable('tenant_wallets')
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
          .addColumn('chain_id', 'integer', (c) => c.notNull())
          .addColumn('address', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('tenant_wallets_pk', ['tenant_id', 'chain_id', 'address'])
          .execute();
      },
    },
    '0007_wallet_signers': {
      async up(db: Kysely<unknown>) {
        // Wallets added at run time, each with the signer that holds its key (never a key):
        // every worker takes them on, on every chain it serves.
        await db.schema
          .createTable('wallet_signers')
          .addColumn('address', 'text', (c) => c.primaryKey())
          .addColumn('signer', 'text', (c) => c.notNull())
          .addColumn('added_at', timestamp, (c) => c.notNull())
          .execute();
      },
    },
    '0008_assets': {
      async up(db: Kysely<unknown>) {
        // The ERC-20 tokens registered per chain, as read from the chain when registered.
        await db.schema
          .createTable('assets')
          .addColumn('chain_id', 'integer', (c) => c.notNull())
          .addColumn('address', 'text', (c) => c.notNull())
          .addColumn('alias', 'text', (c) => c.notNull())
          .addColumn('symbol', 'text', (c) => c.notNull())
          .addColumn('decimals', 'integer', (c) => c.notNull())
          .addColumn('fee_on_transfer', 'integer', (c) => c.notNull())
          .addColumn('created_at', timestamp, (c) => c.notNull())
          .addPrimaryKeyConstraint('assets_pk', ['chain_id', 'address'])
          .addUniqueConstraint('assets_alias', ['chain_id', 'alias'])
          .execute();
        // Books per asset: an account is (owner, kind, asset); what was kept is the native coin's.
        await db.schema
          .createTable('ledger_accounts_by_asset')
          .addColumn('owner', 'text', (c) => c.notNull())
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('asset', 'text', (c) => c.notNull())
          .addColumn('balance', amount, (c) => c.notNull())
          .addPrimaryKeyConstraint('ledger_accounts_asset_pk', ['owner', 'kind', 'asset'])
          .execute();
        await sql`insert into ledger_accounts_by_asset (owner, kind, asset, balance)
          select owner, kind, 'native', balance from ledger_accounts`.execute(db);
        await db.schema.dropTable('ledger_accounts').execute();
        await db.schema
          .alterTable('ledger_accounts_by_asset')
          .renameTo('ledger_accounts')
          .execute();
        const native = (c: ColumnDefinitionBuilder) => c.notNull().defaultTo('native');
        for (const table of ['postings', 'holds', 'intents', 'batch_items']) {
          await db.schema.alterTable(table).addColumn('asset', 'text', native).execute();
        }
        // Gas the hot wallet paid for an intent's mined transaction, and what it held for it.
        await db.schema
          .alterTable('holds')
          .addColumn('fee_held', amount, (c) => c.notNull().defaultTo('0'))
          .execute();
        await db.schema.alterTable('intents').addColumn('fee_paid', amount).execute();
        // What a token actually delivered, when it took a fee on transfer.
        await db.schema.alterTable('intents').addColumn('delivered_amount', amount).execute();
      },
    },
    '0009_webhooks': {
      async up(db: Kysely<unknown>) {
        // Where a tenant is told of its intents' state changes; secrets encrypted at rest.
        await db.schema
          .createTable('webhook_endpoints')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
          .addColumn('url', 'text', (c) => c.notNull())
          .addColumn('event_types', 'text', (c) => c.notNull())
          .addColumn('secret', 'text', (c) => c.notNull())
          .addColumn('previous_secret', 'text')
          .addColumn('previous_secret_until', timestamp)
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('disabled_reason', 'text')
          .addColumn('created_at', timestamp, (c) => c.notNull())
          .addColumn('updated_at', timestamp, (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('webhook_endpoints_tenant')
          .on('webhook_endpoints')
          .columns(['tenant_id', 'status'])
          .execute();
        // The outbox: one event per state change, its body as sent, written with the change.
        await db.schema
          .createTable('webhook_events')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('tenant_id', 'text', (c) => c.notNull())
          .addColumn('intent_id', 'text', (c) => c.notNull().references('intents.id'))
          .addColumn('sequence', 'integer', (c) => c.notNull())
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('previous_status', 'text')
          .addColumn('body', 'text', (c) => c.notNull())
          .addColumn('created_at', timestamp, (c) => c.notNull())
          .addUniqueConstraint('webhook_events_intent_sequence', ['intent_id', 'sequence'])
          .execute();
        // Each event for each endpoint subscribed to it when it happened.
        await db.schema
          .createTable('webhook_deliveries')
          .addColumn('event_id', 'text', (c) => c.notNull().references('webhook_events.id'))
          .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id'))
          .addColumn('intent_id', 'text', (c) => c.notNull())
          .addColumn('sequence', 'integer', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('attempts', 'integer', (c) => c.notNull())
          .addColumn('last_status_code', 'integer')
          .addColumn('last_error', 'text')
          .addColumn('next_attempt_at', timestamp, (c) => c.notNull())
          .addColumn('told_at', timestamp)
          .addColumn('delivered_at', timestamp)
          .addColumn('created_at', timestamp, (c) => c.notNull())
          .addColumn('updated_at', timestamp, (c) => c.notNull())
          .addPrimaryKeyConstraint('webhook_deliveries_pk', ['event_id', 'endpoint_id'])
          .execute();
        await db.schema
          .createIndex('webhook_deliveries_lane')
          .on('webhook_deliveries')
          .columns(['endpoint_id', 'intent_id', 'status', 'sequence'])
          .execute();
        await db.schema
          .createIndex('webhook_deliveries_untold')
          .on('webhook_deliveries')
          .columns(['told_at', 'status'])
          .execute();
        await db.schema
          .createIndex('webhook_deliveries_due')
          .on('webhook_deliveries')
          .columns(['endpoint_id', 'status', 'next_attempt_at'])
          .execute();
        // The delivery log: every attempt, what the receiver answered.
        await db.schema
          .createTable('webhook_attempts')
          .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
            c.primaryKey().notNull(),
          )
          .addColumn('event_id', 'text', (c) => c.notNull())
          .addColumn('endpoint_id', 'text', (c) => c.notNull())
          .addColumn('attempt', 'integer', (c) => c.notNull())
          .addColumn('status_code', 'integer')
          .addColumn('error', 'text')
          .addColumn('duration_ms', 'integer', (c) => c.notNull())
          .addColumn('created_at', timestamp, (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('webhook_attempts_endpoint')
          .on('webhook_attempts')
          .columns(['endpoint_id', 'id'])
          .execute();
      },
    },
    '0010_reason_codes': {
      async up(db: Kysely<unknown>) {
        // Why an intent is where it is, as a code (domain/reason-codes.ts), beside the text.
        await db.schema.alterTable('intents').addColumn('reason_code', 'text').execute();
        await backfillReasonCodes(db);
      },
    },
    '0011_books_per_chain': {
      async up(db: Kysely<unknown>) {
        await rebookNativePerChain(db, dialect, context);
      },
    },
    '0012_finality': {
      async up(db: Kysely<unknown>) {
        // When a confirmed intent's block became final; the sweep looks for confirmed, not yet.
        await db.schema.alterTable('intents').addColumn('finalized_at', timestamp).execute();
        // Intents confirmed before finality was followed are taken as final when they were
        // confirmed: the sweep sends no intent.finalized for history.
        await sql`update intents set finalized_at = updated_at where status = 'confirmed'`.execute(
          db,
        );
        await db.schema
          .createIndex('intents_awaiting_finality')
          .on('intents')
          .columns(['status', 'chain_id', 'finalized_at'])
          .execute();
      },
    },
    '0013_treasury': {
      async up(db: Kysely<unknown>) {
        // A chain's treasury signs top-ups of its hot wallets and is never chosen for a payment.
        await db.schema
          .alterTable('wallets')
          .addColumn('role', 'text', (c) => c.notNull().defaultTo('hot'))
          .execute();
        // When a wallet was first seen below its low mark in an asset: operators are told once
        // a dip. A row while it is low.
        await db.schema
          .createTable('wallet_low_marks')
          .addColumn('chain_id', 'integer', (c) => c.notNull())
          .addColumn('address', 'text', (c) => c.notNull())
          .addColumn('asset', 'text', (c) => c.notNull())
          .addColumn('low_since', timestamp, (c) => c.notNull())
          .addPrimaryKeyConstraint('wallet_low_marks_pk', ['chain_id', 'address', 'asset'])
          .execute();
        // The operators' own owner: top-ups (custody moves, no books) and operator webhooks.
        await sql`insert into tenants (id, name, created_at)
          values (${operatorOwner}, 'the relayer operators', ${new Date().toISOString()})`.execute(
          db,
        );
        // At most one top-up of a wallet in an asset not ended (review included: it may yet
        // land), whoever races to start one.
        await sql`create unique index intents_one_open_top_up on intents (chain_id, to_address, asset)
          where tenant_id = ${sql.lit(operatorOwner)}
            and status not in ('confirmed', 'failed', 'cancelled')`.execute(db);
        // Operator events are about a wallet, not an intent: the event's subject is no longer
        // bound to an intent row (intent events keep naming theirs).
        await dropReference(db, dialect, 'webhook_events', 'intent_id');
      },
    },
  };
}

/**
 * The codes of reasons written before there were codes, read from their text as it was written
 * up to this migration (frozen here: the text may change later, these rows will not).
 */
const legacyExactReasons: Record<string, string> = {
  'transaction reverted on-chain': 'reverted',
  'cancelled on-chain: a zero-value transfer took its nonce': 'cancelled_on_chain',
  'workflow cancelled': 'workflow_cancelled',
};

function reasonCodeOfLegacyText(text: string): string {
  const exact = legacyExactReasons[text];
  if (exact) return exact;
  if (text.startsWith('cancelled by ')) return 'cancelled_by_caller';
  if (text.startsWith('resolved as failed by ')) return 'failed_by_review';
  if (text.startsWith('waiting: wallet ')) return 'wallet_blocked';
  if (/^\w+ still failing when its time ran out/.test(text)) return 'step_timed_out';
  const named = text.match(/^([A-Z][A-Za-z]+): /)?.[1];
  if (named) return named.replace(/(?<=[a-z0-9])([A-Z])/g, '_$1').toLowerCase();
  return 'legacy_unknown';
}

async function backfillReasonCodes(db: Kysely<unknown>): Promise<void> {
  const rows = await sql<{ id: string; reason: string }>`
    select id, reason from intents where reason is not null`.execute(db);
  const byCode = new Map<string, string[]>();
  for (const row of rows.rows) {
    const code = reasonCodeOfLegacyText(row.reason);
    const ids = byCode.get(code);
    if (ids) ids.push(row.id);
    else byCode.set(code, [row.id]);
  }
  for (const [code, ids] of byCode) {
    for (let start = 0; start < ids.length; start += 500) {
      const chunk = ids.slice(start, start + 500);
      await sql`update intents set reason_code = ${code} where id in (${sql.join(chunk)})`.execute(
        db,
      );
    }
  }
}

/** Drops a column's NOT NULL. */
async function allowNull(
  db: Kysely<unknown>,
  dialect: Dialect,
  table: string,
  column: string,
): Promise<void> {
  if (dialect === 'postgres') {
    await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} drop not null`.execute(
      db,
    );
    return;
  }
  await rebuildSqliteTable(db, table, new RegExp(`("${column}"\\s+\\w+)\\s+not null`, 'i'));
}

/** Drops a column's foreign key (declared inline, as every migration here declares them). */
async function dropReference(
  db: Kysely<unknown>,
  dialect: Dialect,
  table: string,
  column: string,
): Promise<void> {
  if (dialect === 'postgres') {
    // PostgreSQL's name for an inline reference.
    const constraint = `${table}_${column}_fkey`;
    await sql`alter table ${sql.table(table)} drop constraint ${sql.ref(constraint)}`.execute(db);
    return;
  }
  await rebuildSqliteTable(
    db,
    table,
    new RegExp(`("${column}"[^,]*?)\\s+references\\s+"\\w+"\\s*\\("\\w+"\\)`, 'i'),
  );
}

/**
 * SQLite cannot alter a column: the table is built again from its own definition with `clause`
 * taken out of it (its first group kept; SQLite's documented twelve steps), with the references
 * from other tables kept, since they name the table, and its indexes made again.
 */
async function rebuildSqliteTable(
  db: Kysely<unknown>,
  table: string,
  clause: RegExp,
): Promise<void> {
  const definitions = await sql<{ type: string; sql: string | null }>`
    select type, sql from sqlite_master where tbl_name = ${table}`.execute(db);
  const created = definitions.rows.find((row) => row.type === 'table')?.sql;
  if (!created || !clause.test(created)) {
    throw new Error(`${table}: no ${String(clause)} in ${created ?? 'no table'}`);
  }
  const rebuilt = `${table}_rebuilt`;
  // Outside a transaction (SQLite ignores the pragma inside one), then all steps in one.
  await sql`pragma foreign_keys = off`.execute(db);
  await sql`begin`.execute(db);
  try {
    await sql
      .raw(
        created
          .replace(clause, '$1')
          .replace(/^create table\s+"?\w+"?/i, `create table "${rebuilt}"`),
      )
      .execute(db);
    await sql`insert into ${sql.table(rebuilt)} select * from ${sql.table(table)}`.execute(db);
    await sql`drop table ${sql.table(table)}`.execute(db);
    await sql`alter table ${sql.table(rebuilt)} rename to ${sql.table(table)}`.execute(db);
    for (const index of definitions.rows) {
      if (index.type === 'index' && index.sql) await sql.raw(index.sql).execute(db);
    }
    const broken = await sql`pragma foreign_key_check`.execute(db);
    if (broken.rows.length > 0) throw new Error(`${table}: references broken by the rebuild`);
    await sql`commit`.execute(db);
  } catch (error) {
    await sql`rollback`.execute(db);
    throw error;
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

export interface MigrationOptions extends Partial<RebookContext> {
  /** Up to and including this migration (default: the latest); a test starts old schemas so. */
  upTo?: string;
}

/**
 * Migrates the schema. A database already migrated past what this version knows is refused
 * before anything runs: an older worker never writes to a schema whose books it would key
 * differently (a rolling upgrade stops the old ones as the new ones migrate).
 */
export async function migrateTo(
  db: Kysely<Schema>,
  dialect: Dialect,
  options: MigrationOptions = {},
): Promise<void> {
  const known = migrations(dialect, {
    homeChainId: options.homeChainId,
    report: options.report ?? ((line) => console.error(`migration: ${line}`)),
  });
  await refuseNewerSchema(db as Kysely<unknown>, Object.keys(known));
  const migrator = new Migrator({
    // Migrations are written against the schema as it was then, not the current Schema type.
    db: db as Kysely<unknown>,
    provider: { getMigrations: async () => known },
  });
  const { error, results } = await (options.upTo === undefined
    ? migrator.migrateToLatest()
    : migrator.migrateTo(options.upTo));
  const failed = results?.find((result) => result.status === 'Error');
  if (error || failed) {
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed`, { cause: error });
  }
}

/** Thrown when the database was migrated by a newer relayer than this one. */
export class SchemaNewerThanCodeError extends Error {
  constructor(readonly unknownMigrations: string[]) {
    super(
      `the database schema is newer than this relayer: it has migration ${unknownMigrations.join(', ')}, ` +
        'which this version does not know. Run the version that migrated it (or newer); ' +
        'an older worker must not write books a newer schema keeps differently',
    );
    this.name = 'SchemaNewerThanCode';
  }
}

async function refuseNewerSchema(db: Kysely<unknown>, known: readonly string[]): Promise<void> {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  if (!tables.some((table) => table.name === 'kysely_migration')) return;
  const applied = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
  const unknown = applied.rows.map((row) => row.name).filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new SchemaNewerThanCodeError(unknown.sort());
}
