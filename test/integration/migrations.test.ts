import { sql } from 'kysely';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEther } from 'viem';
import { createScratchDatabase } from '../harness/stack/local-world';
import { parseNewIntent } from '../../domain/intent-request';
import { defaultKeyScopes } from '../../domain/api-scopes';
import { listKeys } from '../../service/api-keys';
import { recordAudit } from '../../store/audit-log';
import { findBatch, insertBatch } from '../../store/batches';
import { batchItems } from '../../store/batch-items';
import { BatchMode } from '../../domain/batch';
import { openDatabase, type Database } from '../../store/database';
import { getIntent, insertIntent } from '../../store/intents';
import { nativeBookOf } from '../../domain/ledger-book';
import { tenantBalance, tenantBalances } from '../../store/ledger';
import { endHold } from '../../store/holds';
import { ledgerSnapshot } from '../harness/ledger-checks';
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

  it('0005 lets an intent name no wallet, 0008 keeps books per asset; every row, reference and index kept', async () => {
    const old = await openDatabase(scratch.url, { upTo: '0004_transaction_attempts_nonce_fills' });
    const now = new Date();
    const at = now.toISOString();
    // Written as the code of 0004's time wrote them: no asset anywhere, one book per tenant.
    await old.transaction(async (trx) => {
      await sql`insert into tenants (id, name, created_at) values ('acme', 'Acme', ${at})`.execute(
        trx,
      );
      for (const [kind, balance] of [
        ['available', parseEther('9')],
        ['held', parseEther('1')],
      ] as const) {
        await sql`insert into ledger_accounts (owner, kind, balance)
          values ('acme', ${kind}, ${balance.toString()})`.execute(trx);
      }
      for (const [entry, owner, kind, amount] of [
        ['deposit', '@system', 'funding', -parseEther('10')],
        ['deposit', 'acme', 'available', parseEther('10')],
        ['hold', 'acme', 'available', -parseEther('1')],
        ['hold', 'acme', 'held', parseEther('1')],
      ] as const) {
        await sql`insert into postings (entry, intent_id, owner, kind, amount, created_at)
          values (${entry}, null, ${owner}, ${kind}, ${amount.toString()}, ${at})`.execute(trx);
      }
      await sql`insert into intents (id, tenant_id, chain_id, from_address, to_address, amount,
          status, version, nonce, tx_hash, raw_tx, block_number, reason, idempotency_key,
          created_at, updated_at)
        values ('pi_old', 'acme', 31337, ${wallet}, ${recipient}, '1000', 'signed', 2, 7,
          ${txHash}, '0x02', null, null, 'key-1', ${at}, ${at})`.execute(trx);
      await insertAttempt(
        trx,
        {
          intentId: 'pi_old',
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
        { intentId: 'pi_old', action: 'replaced', actor: 'relayer', detail: {} },
        now,
      );
      await sql`insert into batches (id, tenant_id, mode, concurrency, item_count, status, cause,
          idempotency_key, request_sha256, created_at, updated_at)
        values ('pb_old', 'acme', 'collect_all', 1, 1, 'running', null, 'batch-1', 'sha',
          ${at}, ${at})`.execute(trx);
      await sql`insert into batch_items (batch_id, item_index, chain_id, from_address, to_address,
          amount, state)
        values ('pb_old', 0, 31337, ${wallet}, ${recipient}, '1000', 'pending')`.execute(trx);
    });
    const request = parseNewIntent({
      tenantId: 'acme',
      chainId: 31337,
      from: wallet,
      to: recipient,
      amount: '1000',
    });
    const intent = { id: 'pi_old' };
    await old.close();

    // Up to 0010: 0011 moves the native book per chain (its own test below).
    database = await openDatabase(scratch.url, { upTo: '0010_reason_codes' });
    const db = database.kysely;
    const before = await getIntent(db, intent.id);
    expect(before).toMatchObject({ status: 'signed', nonce: 7, txHash, amount: 1000n });
    expect(await listAttempts(db, intent.id)).toMatchObject([{ nonce: 7, txHash }]);
    expect(await batchItems(db, 'pb_old', 0, 10)).toMatchObject([{ from: wallet }]);
    const audit = await db.selectFrom('audit_log').selectAll().execute();
    expect(audit).toMatchObject([{ intent_id: intent.id, action: 'replaced' }]);
    // 0008: what was kept is the native coin's, in its book; the intent and the item pay in it.
    expect(await tenantBalance(db, 'acme', 'native')).toEqual({
      available: parseEther('9'),
      held: parseEther('1'),
    });
    expect((await tenantBalances(db, 'acme')).size).toBe(1);
    const postings = await db.selectFrom('postings').select('asset').distinct().execute();
    expect(postings).toEqual([{ asset: 'native' }]);
    expect(before).toMatchObject({ asset: 'native', feePaid: null, deliveredAmount: null });
    expect(await batchItems(db, 'pb_old', 0, 10)).toMatchObject([{ asset: 'native' }]);

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

  it('0010 gives every stored reason its code, read from the text as it was written; legacy_unknown where none fits', async () => {
    const old = await openDatabase(scratch.url, { upTo: '0009_webhooks' });
    const at = new Date().toISOString();
    const reasons: Record<string, string | null> = {
      pi_paid: null,
      pi_reverted: 'transaction reverted on-chain',
      pi_cancel_mined: 'cancelled on-chain: a zero-value transfer took its nonce',
      pi_cancelled: 'cancelled by tenant acme key 95cb398b4e4c5d6c (demo)',
      pi_review_failed: 'resolved as failed by operator key 1a2b (ops): recipient asked to stop',
      pi_timeout: 'ConfirmationTimeout: transaction 0x52db not confirmed within 5s',
      pi_no_wallet: 'NoFundedWallet: no hot wallet can pay 1 ETH on chain 31337',
      pi_send_window:
        'broadcast still failing when its time ran out; last error RpcUnavailable: 503',
      pi_blocked: 'waiting: wallet 0x7099 on chain 31337 is blocked by intent pi_x in review',
      pi_workflow: 'workflow cancelled',
      pi_odd: 'something a person once typed',
    };
    await old.transaction(async (trx) => {
      await sql`insert into tenants (id, name, created_at) values ('acme', 'Acme', ${at})`.execute(
        trx,
      );
      for (const [id, reason] of Object.entries(reasons)) {
        await sql`insert into intents (id, tenant_id, chain_id, from_address, to_address, amount,
            status, version, reason, created_at, updated_at)
          values (${id}, 'acme', 31337, ${wallet}, ${recipient}, '1000', 'failed', 3, ${reason},
            ${at}, ${at})`.execute(trx);
      }
    });
    await old.close();

    database = await openDatabase(scratch.url);
    const codes = Object.fromEntries(
      await Promise.all(
        Object.keys(reasons).map(async (id) => {
          const intent = await getIntent(database!.kysely, id);
          expect(intent.reason).toBe(reasons[id]);
          return [id, intent.reasonCode];
        }),
      ),
    );
    expect(codes).toEqual({
      pi_paid: null,
      pi_reverted: 'reverted',
      pi_cancel_mined: 'cancelled_on_chain',
      pi_cancelled: 'cancelled_by_caller',
      pi_review_failed: 'failed_by_review',
      pi_timeout: 'confirmation_timeout',
      pi_no_wallet: 'no_funded_wallet',
      pi_send_window: 'step_timed_out',
      pi_blocked: 'wallet_blocked',
      pi_workflow: 'workflow_cancelled',
      pi_odd: 'legacy_unknown',
    });
  });

  it('0018 closes the reason codes: an unknown code becomes internal, a batch cause gets its code from its text', async () => {
    const old = await openDatabase(scratch.url, { upTo: '0017_calls_without_code' });
    const at = new Date().toISOString();
    const storedCodes: Record<string, string | null> = {
      pi_paid: null,
      pi_bug: 'type_error',
      pi_no_wallet: 'no_funded_wallet',
      pi_old_error: 'pool_full',
      pi_odd: 'legacy_unknown',
    };
    const causes: Record<string, string | null> = {
      b_running: null,
      b_cancelled: 'cancelled: payroll withdrawn (tenant acme key 95cb (demo))',
      b_temporal: 'cancelled: the batch workflow was cancelled',
      b_item: 'item 3 ended failed',
      b_expired: 'approval_expired: not approved within 24 h',
      b_rejected: 'rejected by tenant acme key 59a7 (cfo): not ours',
      b_odd: 'something else',
    };
    await sql`insert into tenants (id, name, created_at) values ('acme', 'Acme', ${at})`.execute(
      old.kysely,
    );
    for (const [id, code] of Object.entries(storedCodes)) {
      await sql`insert into intents (id, tenant_id, chain_id, from_address, to_address, amount,
          status, version, reason, reason_code, created_at, updated_at)
        values (${id}, 'acme', 31337, ${wallet}, ${recipient}, '1000', 'failed', 3,
          ${code && `text of ${code}`}, ${code}, ${at}, ${at})`.execute(old.kysely);
    }
    for (const [id, cause] of Object.entries(causes)) {
      const batch = { id, tenantId: 'acme', mode: BatchMode.collectAll, concurrency: 1 };
      await insertBatch(
        old.kysely,
        { ...batch, itemCount: 0, idempotencyKey: id, requestSha256: id },
        [],
        new Date(),
      );
      await sql`update batches set cause = ${cause} where id = ${id}`.execute(old.kysely);
    }
    await old.close();

    database = await openDatabase(scratch.url);
    const codes: Record<string, string | null> = {};
    for (const id of Object.keys(storedCodes)) {
      const intent = await getIntent(database.kysely, id);
      expect(intent.reason).toBe(storedCodes[id] && `text of ${storedCodes[id]}`);
      codes[id] = intent.reasonCode;
    }
    expect(codes).toEqual({ ...storedCodes, pi_bug: 'internal' });
    const batchCauses: Record<string, unknown> = {};
    for (const id of Object.keys(causes)) {
      batchCauses[id] = (await findBatch(database.kysely, { id }))!.cause;
    }
    const cause = (id: string, code: string) => ({ code, text: causes[id] });
    expect(batchCauses).toEqual({
      b_running: null,
      b_cancelled: cause('b_cancelled', 'cancelled_by_caller'),
      b_temporal: cause('b_temporal', 'workflow_cancelled'),
      b_item: cause('b_item', 'item_failed'),
      b_expired: cause('b_expired', 'approval_expired'),
      b_rejected: cause('b_rejected', 'rejected_by_approver'),
      b_odd: cause('b_odd', 'legacy_unknown'),
    });
  });

  it('0019 gives intents deadlines: those admitted before have none, a new one keeps its own', async () => {
    const old = await openDatabase(scratch.url, { upTo: '0018_closed_reason_codes' });
    const at = new Date().toISOString();
    await sql`insert into tenants (id, name, created_at) values ('acme', 'Acme', ${at})`.execute(
      old.kysely,
    );
    await sql`insert into intents (id, tenant_id, chain_id, from_address, to_address, amount,
        status, version, created_at, updated_at)
      values ('pi_before', 'acme', 31337, ${wallet}, ${recipient}, '1000', 'authorized', 1,
        ${at}, ${at})`.execute(old.kysely);
    await old.close();

    database = await openDatabase(scratch.url);
    expect(await getIntent(database.kysely, 'pi_before')).toMatchObject({
      validUntil: null,
      notBefore: null,
    });
    const validUntil = new Date(Date.now() + 3_600_000);
    const notBefore = new Date(Date.now() + 60_000);
    const request = parseNewIntent({
      tenantId: 'acme',
      chainId: 31337,
      to: recipient,
      amount: '1000',
      validUntil: validUntil.toISOString(),
      notBefore: notBefore.toISOString(),
    });
    await insertIntent(database.kysely, 'pi_after', request, new Date());
    expect(await getIntent(database.kysely, 'pi_after')).toMatchObject({ validUntil, notBefore });
  });

  it('0011 books the native coin per chain: holds in flight to their chain, the rest to CHAIN_ID, by one posted entry; the retired book closed to old writers', async () => {
    const old = await openDatabase(scratch.url, { upTo: '0010_reason_codes' });
    const at = new Date().toISOString();
    const token = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
    const tokenBook = `erc20:31337:${token}`;
    const eth = (value: string) => parseEther(value).toString();
    // As 0010's code kept them: acme deposited 10 (native, one book), globex 5; pi_a holds 1 ETH
    // + 0.01 gas on chain 31338, pi_b a token on 31337 with 0.01 gas held, pi_c paid 2 ETH on
    // 31337 (its gas paid by the house).
    await old.transaction(async (trx) => {
      for (const [chainId, address] of [
        [31337, wallet],
        [31338, wallet],
      ] as const) {
        await sql`insert into wallets (chain_id, address, next_nonce)
          values (${chainId}, ${address}, 0)`.execute(trx);
      }
      for (const id of ['acme', 'globex']) {
        await sql`insert into tenants (id, name, created_at) values (${id}, ${id}, ${at})`.execute(
          trx,
        );
      }
      for (const [id, chainId, asset, amount, status] of [
        ['pi_a', 31338, 'native', eth('1'), 'signed'],
        ['pi_b', 31337, token, '500', 'held'],
        ['pi_c', 31337, 'native', eth('2'), 'confirmed'],
      ] as const) {
        await sql`insert into intents (id, tenant_id, chain_id, from_address, to_address, amount,
            asset, status, version, created_at, updated_at)
          values (${id}, 'acme', ${chainId}, ${wallet}, ${recipient}, ${amount}, ${asset},
            ${status}, 3, ${at}, ${at})`.execute(trx);
      }
      for (const [id, asset, amount, feeHeld, status] of [
        ['pi_a', 'native', eth('1'), eth('0.01'), 'active'],
        ['pi_b', tokenBook, '500', eth('0.01'), 'active'],
        ['pi_c', 'native', eth('2'), '0', 'captured'],
      ] as const) {
        await sql`insert into holds (intent_id, tenant_id, asset, amount, fee_held, status,
            created_at, updated_at)
          values (${id}, 'acme', ${asset}, ${amount}, ${feeHeld}, ${status}, ${at}, ${at})`.execute(
          trx,
        );
      }
      const postings: [string, string | null, string, string, string, bigint][] = [
        ['deposit', null, '@system', 'funding', 'native', -parseEther('10')],
        ['deposit', null, 'acme', 'available', 'native', parseEther('10')],
        // An amount a double cannot hold: the migration must add wei exactly.
        ['deposit', null, '@system', 'funding', 'native', -(parseEther('5') + 1n)],
        ['deposit', null, 'globex', 'available', 'native', parseEther('5') + 1n],
        ['deposit', null, '@system', 'funding', tokenBook, -1000n],
        ['deposit', null, 'acme', 'available', tokenBook, 1000n],
        ['hold', 'pi_a', 'acme', 'available', 'native', -parseEther('1.01')],
        ['hold', 'pi_a', 'acme', 'held', 'native', parseEther('1.01')],
        ['hold', 'pi_b', 'acme', 'available', tokenBook, -500n],
        ['hold', 'pi_b', 'acme', 'held', tokenBook, 500n],
        ['hold', 'pi_b', 'acme', 'available', 'native', -parseEther('0.01')],
        ['hold', 'pi_b', 'acme', 'held', 'native', parseEther('0.01')],
        ['hold', 'pi_c', 'acme', 'available', 'native', -parseEther('2')],
        ['hold', 'pi_c', 'acme', 'held', 'native', parseEther('2')],
        ['capture', 'pi_c', 'acme', 'held', 'native', -parseEther('2')],
        ['capture', 'pi_c', '@system', 'settled', 'native', parseEther('2')],
        ['gas', 'pi_c', '@system', 'house', 'native', -parseEther('0.001')],
        ['gas', 'pi_c', '@system', 'fees', 'native', parseEther('0.001')],
      ];
      for (const [entry, intentId, owner, kind, asset, amount] of postings) {
        await sql`insert into postings (entry, intent_id, owner, kind, asset, amount, created_at)
          values (${entry}, ${intentId}, ${owner}, ${kind}, ${asset}, ${amount.toString()}, ${at})`.execute(
          trx,
        );
      }
      for (const [owner, kind, asset, balance] of [
        ['acme', 'available', 'native', eth('6.98')],
        ['acme', 'held', 'native', eth('1.02')],
        ['globex', 'available', 'native', (parseEther('5') + 1n).toString()],
        ['globex', 'held', 'native', '0'],
        ['acme', 'available', tokenBook, '500'],
        ['acme', 'held', tokenBook, '500'],
      ] as const) {
        await sql`insert into ledger_accounts (owner, kind, asset, balance)
          values (${owner}, ${kind}, ${asset}, ${balance})`.execute(trx);
      }
    });
    const before = await ledgerSnapshot(old);
    await old.close();

    // Two chains served and no CHAIN_ID: where the available balances go is not known. Refused,
    // nothing changed.
    await expect(openDatabase(scratch.url, { report: () => {} })).rejects.toMatchObject({
      cause: {
        message: expect.stringMatching(/moves native balances to CHAIN_ID.*chains 31337, 31338/s),
      },
    });
    const untouched = await openDatabase(scratch.url, { upTo: '0010_reason_codes' });
    expect(await ledgerSnapshot(untouched)).toEqual(before);
    await untouched.close();

    const report: string[] = [];
    database = await openDatabase(scratch.url, {
      homeChainId: 31337,
      report: (line) => report.push(line),
    });
    const db = database.kysely;
    const home = nativeBookOf(31337);
    const other = nativeBookOf(31338);
    expect(await tenantBalance(db, 'acme', other)).toEqual({
      available: 0n,
      held: parseEther('1.01'),
    });
    expect(await tenantBalance(db, 'acme', home)).toEqual({
      available: parseEther('6.98'),
      held: parseEther('0.01'),
    });
    expect(await tenantBalance(db, 'globex', home)).toEqual({
      available: parseEther('5') + 1n,
      held: 0n,
    });
    expect(await tenantBalance(db, 'acme', tokenBook)).toEqual({ available: 500n, held: 500n });
    expect(await tenantBalance(db, 'acme', 'native')).toBeUndefined();

    // One entry moved it all; every book sums to zero and every account is its postings.
    const after = await ledgerSnapshot(database);
    for (const [book, total] of Object.entries(after.postedByAsset)) {
      expect({ book, total }).toEqual({ book, total: 0n });
    }
    for (const [account, balance] of Object.entries(after.balances)) {
      expect({ account, balance }).toEqual({ account, balance: after.posted[account] ?? 0n });
    }
    expect(after.posted[`@system/funding/${other}`]).toBe(-parseEther('1.01'));
    expect(after.posted[`@system/settled/${home}`]).toBe(parseEther('2'));
    expect(after.posted[`@system/fees/${home}`]).toBe(parseEther('0.001'));
    const entries = await db.selectFrom('postings').select('entry').distinct().execute();
    expect(entries.map((row) => row.entry).sort()).toEqual([
      'capture',
      'deposit',
      'gas',
      'hold',
      'rebook_per_chain',
    ]);
    expect(report).toContainEqual(
      `books per chain: acme held +${parseEther('1.01')} wei in ${other} (from native)`,
    );
    const holds = await db.selectFrom('holds').select(['intent_id', 'asset']).execute();
    expect(Object.fromEntries(holds.map((h) => [h.intent_id, h.asset]))).toEqual({
      pi_a: other,
      pi_b: tokenBook,
      pi_c: 'native',
    });

    // A hold in flight ends in its chain's book: pi_a released gives 1.01 back on 31338 only.
    await database.transaction((trx) => endHold(database!, trx, 'pi_a', 'released', new Date()));
    expect(await tenantBalance(db, 'acme', other)).toEqual({
      available: parseEther('1.01'),
      held: 0n,
    });

    // A worker of the old version still running writes to the retired book: the database refuses.
    // (By message: better-sqlite3 throws the SqliteError class of the first test file that loaded
    // it in this jest worker, which is no Error of this file's realm for toThrow.)
    const refused = {
      message: expect.stringMatching(/per chain since migration 0011|native_per_chain/),
    };
    await expect(
      sql`insert into postings (entry, intent_id, owner, kind, asset, amount, created_at)
        values ('deposit', null, 'acme', 'available', 'native', '1', ${at})`.execute(db),
    ).rejects.toMatchObject(refused);
    await expect(
      sql`insert into ledger_accounts (owner, kind, asset, balance)
        values ('initech', 'available', 'native', '0')`.execute(db),
    ).rejects.toMatchObject(refused);
  });

  it('0014 gives each key the scopes its role let it use, none approve; the keys keep working', async () => {
    const old = await openDatabase(scratch.url, { upTo: '0013_treasury', homeChainId: 31337 });
    const at = new Date().toISOString();
    await sql`insert into tenants (id, name, created_at) values ('acme', 'Acme', ${at})`.execute(
      old.kysely,
    );
    for (const [id, role, tenant, revokedAt] of [
      ['1111111111111111', 'tenant', 'acme', null],
      ['2222222222222222', 'operator', null, null],
      ['3333333333333333', 'tenant', 'acme', at],
    ] as const) {
      await sql`insert into api_keys (id, role, tenant_id, label, secret_sha256, created_at,
          revoked_at)
        values (${id}, ${role}, ${tenant}, 'old', ${'00'.repeat(32)}, ${at}, ${revokedAt})`.execute(
        old.kysely,
      );
    }
    await old.close();

    database = await openDatabase(scratch.url, { homeChainId: 31337 });
    const keys = Object.fromEntries(
      (await listKeys(database)).map((key) => [key.id, key] as const),
    );
    expect(keys['1111111111111111']).toMatchObject({
      scopes: defaultKeyScopes(true),
      expiresAt: null,
      lastUsedAt: null,
      replacedBy: null,
      revoked: false,
    });
    expect(keys['2222222222222222']).toMatchObject({
      scopes: defaultKeyScopes(false),
      revoked: false,
    });
    expect(keys['3333333333333333']).toMatchObject({
      scopes: defaultKeyScopes(true),
      revoked: true,
    });
    expect(Object.values(keys).flatMap((key) => key.scopes)).not.toContain('approve');
  });

  it('a worker older than its database refuses to start, naming the migration it does not know', async () => {
    database = await openDatabase(scratch.url, { homeChainId: 31337 });
    await sql`insert into kysely_migration (name, timestamp)
      values ('9999_from_the_future', ${new Date().toISOString()})`.execute(database.kysely);
    await expect(openDatabase(scratch.url, { homeChainId: 31337 })).rejects.toThrow(
      /schema is newer than this relayer: it has migration 9999_from_the_future/,
    );
  });
});
