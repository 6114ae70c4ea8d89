import { sql } from 'kysely';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEther } from 'viem';
import { createScratchDatabase } from '../../dev/stack/local-world';
import { parseNewIntent } from '../../domain/intent-request';
import { recordAudit } from '../../store/audit-log';
import { insertBatch, batchItems } from '../../store/batches';
import { openDatabase, type Database } from '../../store/database';
import { getIntent, insertIntent, transitionIntent } from '../../store/intents';
import { createTenant, deposit } from '../../store/ledger';
import { insertAttempt, listAttempts } from '../../store/transaction-attempts';

const onPostgres = () =>
  (globalThis as { __relayerTestStore?: string }).__relayerTestStore === 'postgres';

const wallet = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const recipient = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const txHash = `0x${'ab'.repeat(32)}` as const;

/** A fresh database URL of this project's store, and how to remove it. */
async function scratchUrl(): Promise<{ url: string; drop(): Promise<void> }> {
  if (onPostgres()) return createScratchDatabase(process.env.TEST_POSTGRES_URL!);
  const dir = mkdtempSync(join(tmpdir(), 'relayer-migrations-'));
  return {
    url: `sqlite:${join(dir, 'relayer.sqlite')}`,
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

describe('migrations on a database that holds payments', () => {
  let scratch: { url: string; drop(): Promise<void> };
  let database: Database | undefined;
  beforeEach(async () => {
    scratch = await scratchUrl();
  });
  afterEach(async () => {
    await database?.close();
    await scratch.drop();
  });

  it('0005 lets an intent name no wallet, and keeps every row, reference and index', async () => {
    const old = await openDatabase(scratch.url, '0004_transaction_attempts_nonce_fills');
    const now = new Date();
    await createTenant(old, { id: 'acme', name: 'Acme' }, now);
    await deposit(old, 'acme', parseEther('10'), now);
    const request = parseNewIntent({
      tenantId: 'acme',
      chainId: 31337,
      from: wallet,
      to: recipient,
      amount: '1000',
    });
    const { intent } = await insertIntent(old.kysely, 'pi_old', request, now, 'key-1');
    await old.transaction(async (trx) => {
      await insertAttempt(
        trx,
        {
          intentId: intent.id,
          attempt: 1,
          nonce: 7,
          txHash,
          rawTx: '0x02',
          gas: 21000n,
          maxFeePerGas: 2n,
          maxPriorityFeePerGas: 1n,
          cause: 'first',
        },
        now,
      );
      await recordAudit(
        trx,
        { intentId: intent.id, action: 'replaced', actor: 'relayer', detail: {} },
        now,
      );
      await transitionIntent(trx, intent, { status: 'signed', nonce: 7, txHash }, now);
      await insertBatch(
        trx,
        {
          id: 'pb_old',
          tenantId: 'acme',
          mode: 'collect_all',
          concurrency: 1,
          itemCount: 1,
          idempotencyKey: 'batch-1',
          requestSha256: 'sha',
        },
        [{ chainId: 31337, from: wallet, to: recipient, amount: 1000n }],
        now,
      );
    });
    const before = await getIntent(old.kysely, intent.id);
    await old.close();

    database = await openDatabase(scratch.url);
    const db = database.kysely;
    expect(await getIntent(db, intent.id)).toEqual(before);
    expect(await listAttempts(db, intent.id)).toMatchObject([{ nonce: 7, txHash }]);
    expect(await batchItems(db, 'pb_old', 0, 10)).toMatchObject([{ from: wallet }]);
    const audit = await db.selectFrom('audit_log').selectAll().execute();
    expect(audit).toMatchObject([{ intent_id: intent.id, action: 'replaced' }]);

    // The new shape: no wallet until signed.
    const unpinned = { ...request, from: undefined };
    expect((await insertIntent(db, 'pi_new', unpinned, now)).intent.from).toBeNull();
    // References still hold: every table that named intents still does, and the checks are on.
    if (!onPostgres()) {
      const [pragma] = (await sql`pragma foreign_keys`.execute(db)).rows;
      expect(pragma).toEqual({ foreign_keys: 1 });
      for (const table of ['transaction_attempts', 'audit_log', 'batch_items']) {
        const references = await sql<{ table: string; from: string }>`
          select "table", "from" from pragma_foreign_key_list(${table})`.execute(db);
        expect(references.rows).toContainEqual({ table: 'intents', from: 'intent_id' });
      }
      expect((await sql`pragma foreign_key_check`.execute(db)).rows).toEqual([]);
    }
    // Every index of the rebuilt table was made again.
    const indexes = onPostgres()
      ? await sql<{
          name: string;
        }>`select indexname as name from pg_indexes where tablename = 'intents'`.execute(db)
      : await sql<{
          name: string;
        }>`select name from sqlite_master where type = 'index' and tbl_name = 'intents'`.execute(
          db,
        );
    expect(indexes.rows.map((row) => row.name)).toEqual(
      expect.arrayContaining([
        'intents_status',
        'intents_tenant_status',
        'intents_tenant_idempotency_key',
        'intents_tenant_created',
      ]),
    );
  });
});
