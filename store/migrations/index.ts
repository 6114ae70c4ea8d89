import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import type { Dialect, Schema } from '../schema';
import { intentsLedgerWallets } from './0001-intents-ledger-wallets';
import { apiKeysAuditTenantLimits } from './0002-api-keys-audit-tenant-limits';
import { batches } from './0003-batches';
import { transactionAttemptsNonceFills } from './0004-transaction-attempts-nonce-fills';
import { walletChosenAtSigning } from './0005-wallet-chosen-at-signing';
import { walletPools } from './0006-wallet-pools';
import { walletSigners } from './0007-wallet-signers';
import { assets } from './0008-assets';
import { webhooks } from './0009-webhooks';
import { reasonCodes } from './0010-reason-codes';
import { booksPerChain } from './0011-books-per-chain';
import { finality } from './0012-finality';
import { treasury } from './0013-treasury';
import { apiKeyScopesAndLimits } from './0014-api-key-scopes-and-limits';
import { paymentPolicies } from './0015-payment-policies';
import { callsAndBatchApprovals } from './0016-calls-and-batch-approvals';
import { callsWithoutCode } from './0017-calls-without-code';
import { closedReasonCodes } from './0018-closed-reason-codes';
import { intentDeadlines } from './0019-intent-deadlines';
import { pauses } from './0020-pauses';
import { batchDeadlines } from './0021-batch-deadlines';
import { paymentSchedules } from './0022-payment-schedules';
import { priorities } from './0023-priorities';
import { tenantFairnessWeights } from './0024-tenant-fairness-weights';
import { deposits } from './0025-deposits';
import { schedulePauseNotes } from './0026-schedule-pause-notes';
import { lineRepairs } from './0027-line-repairs';
import { delayedNotices } from './0028-delayed-notices';
import { callerReferences } from './0029-caller-references';
import { feeCeilings } from './0030-fee-ceilings';
import { migrationContext, type MigrationContext } from './migration-context';
import type { RebookContext } from './rebook-native-per-chain';
import { log } from '../../domain/log';

/**
 * Migrations, one file each, in order, never edited once released: a new change is a new file
 * and a new line here.
 */
const migrations = (context: MigrationContext): Record<string, Migration> => ({
  '0001_intents_ledger_wallets': intentsLedgerWallets(context),
  '0002_api_keys_audit_tenant_limits': apiKeysAuditTenantLimits(context),
  '0003_batches': batches(context),
  '0004_transaction_attempts_nonce_fills': transactionAttemptsNonceFills(context),
  '0005_wallet_chosen_at_signing': walletChosenAtSigning(context),
  '0006_wallet_pools': walletPools(context),
  '0007_wallet_signers': walletSigners(context),
  '0008_assets': assets(context),
  '0009_webhooks': webhooks(context),
  '0010_reason_codes': reasonCodes,
  '0011_books_per_chain': booksPerChain(context),
  '0012_finality': finality(context),
  '0013_treasury': treasury(context),
  '0014_api_key_scopes_and_limits': apiKeyScopesAndLimits(context),
  '0015_payment_policies': paymentPolicies(context),
  '0016_calls_and_batch_approvals': callsAndBatchApprovals(context),
  '0017_calls_without_code': callsWithoutCode,
  '0018_closed_reason_codes': closedReasonCodes,
  '0019_intent_deadlines': intentDeadlines(context),
  '0020_pauses': pauses(context),
  '0021_batch_deadlines': batchDeadlines(context),
  '0022_payment_schedules': paymentSchedules(context),
  '0023_priorities': priorities,
  '0024_tenant_fairness_weights': tenantFairnessWeights,
  '0025_deposits': deposits(context),
  '0026_schedule_pause_notes': schedulePauseNotes,
  '0027_line_repairs': lineRepairs,
  '0028_delayed_notices': delayedNotices,
  '0029_caller_references': callerReferences,
  '0030_fee_ceilings': feeCeilings,
});

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
  const known = migrations(
    migrationContext(dialect, {
      homeChainId: options.homeChainId,
      // What a migration did to the books: a line an operator must see at any LOG_LEVEL but
      // ERROR, and not an error.
      report: options.report ?? ((line) => log.warn(`migration: ${line}`)),
    }),
  );
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
