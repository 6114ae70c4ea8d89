import { startScanAt } from '../../store/deposit-scans';
import { getAddress, parseEther, type Hex } from 'viem';
import { systemClock } from '../../activities/dependencies';
import { scanDeposits, type ScanDepositsParameters } from '../../activities/scan-deposits';
import { depositAddressOf, depositSalt } from '../../chain/deposit-addresses';
import { nativeBookOf } from '../../domain/ledger-book';
import { listDeposits } from '../../store/deposits';
import { ensureDepositAddress } from '../../store/deposit-addresses';
import { tenantBalance } from '../../store/ledger';
import { registerEndpoint } from '../../service/webhooks';
import { registerToken } from '../../service/assets';
import { deployTestToken } from '../harness/stack/test-tokens';
import { deployerClient } from '../harness/stack/solidity';
import type { ChainRegistry } from '../../chain/chain';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { apiRefusal, createKeys, startApiWithoutWorkers, type ApiUnderTest } from '../harness/api';
import { runActivity } from '../harness/run-activity';
import { registeredTestToken, type RegisteredTestToken } from '../harness/test-token';
import { testWebhookSettings } from '../harness/webhook-settings';
import { useWorld, type TestWorld } from '../harness/test-world';

// Deposits found on the chain and credited once at finality: anvil's finalized block trails its
// head by two (two epochs of one slot), so a deposit is final two blocks after its own.

const world = useWorld({ anvil: { slotsInAnEpoch: 1 }, tenants: { acme: '0', globex: '0' } });
/** Counterfactual: detection needs no code at the factory. */
const factory = getAddress('0x000000000000000000000000000000000000fac7');
let token: RegisteredTestToken;

const scan = (world: TestWorld, maxBlocks = 100) => {
  const input: ScanDepositsParameters = {
    chainId: world.anvil.chainId,
    maxBlocks,
    creditLimit: 100,
  };
  return runActivity(
    scanDeposits({
      db: world.database,
      chains: world.chains,
      clock: systemClock,
      dustMarks: { nativeWei: parseEther('0.001'), tokens: '0.01' },
    }),
    input,
  );
};

async function addressOf(world: TestWorld, tenantId: string, index = 0): Promise<Hex> {
  const salt = depositSalt(tenantId, world.anvil.chainId, index);
  const address = depositAddressOf(factory, salt);
  await ensureDepositAddress(
    world.database.kysely,
    { chainId: world.anvil.chainId, address, tenantId, index, salt, factory },
    new Date(),
  );
  await startScanAt(
    world.database.kysely,
    world.anvil.chainId,
    await world.testClient.getBlockNumber({ cacheTime: 0 }),
    new Date(),
  );
  return address;
}

/** From anvil's last account (never a hot wallet), the receipt awaited. */
async function sendNative(world: TestWorld, to: Hex, value: bigint) {
  const sender = deployerClient(world.anvil);
  return sender.waitForTransactionReceipt({ hash: await sender.sendTransaction({ to, value }) });
}

beforeAll(async () => {
  token = await registeredTestToken(world, { alias: 'DUSD', decimals: 6, tenants: {} });
});

describe('deposits: found on the chain, credited once at finality', () => {
  it('the native coin and a registered token: detected at once, credited once when final, told by webhook', async () => {
    const db = world.database.kysely;
    await registerEndpoint(
      { database: world.database, webhooks: testWebhookSettings() },
      { role: 'tenant', tenantId: 'acme', keyId: 'test', label: 'test' },
      { url: 'http://127.0.0.1:9/hooks', eventTypes: ['deposit.detected', 'deposit.credited'] },
    );
    const address = await addressOf(world, 'acme');
    await sendNative(world, address, parseEther('1.25'));
    await token.token.write('mint', [address, 7_500_000n]);

    expect(await scan(world)).toMatchObject({ detected: 2, credited: 0 });
    expect((await tenantBalance(db, 'acme', nativeBookOf(world.anvil.chainId)))?.available).toBe(
      0n,
    );

    await world.testClient.mine({ blocks: 2 });
    const twice = await Promise.all([scan(world), scan(world)]);
    // Two scans race for the same deposits (on PostgreSQL each may win one): each is credited once.
    expect(twice[0]!.credited + twice[1]!.credited).toBe(2);
    expect(await scan(world)).toMatchObject({ detected: 0, credited: 0 });

    expect((await tenantBalance(db, 'acme', nativeBookOf(world.anvil.chainId)))?.available).toBe(
      parseEther('1.25'),
    );
    expect((await tenantBalance(db, 'acme', token.ledgerAsset))?.available).toBe(7_500_000n);
    const deposits = await listDeposits(db, 'acme', { limit: 10 });
    expect(deposits.map((d) => [d.asset, d.status, d.logIndex]).sort()).toEqual([
      [token.token.address, 'credited', 0],
      ['native', 'credited', -1],
    ]);
    const events = await db
      .selectFrom('webhook_events')
      .select(['type'])
      .where('tenant_id', '=', 'acme')
      .execute();
    expect(events.map((e) => e.type).sort()).toEqual([
      'deposit.credited',
      'deposit.credited',
      'deposit.detected',
      'deposit.detected',
    ]);
    await expectBooksBalanced(world.database);
  });

  it('an unregistered token and dust are recorded, never credited', async () => {
    const db = world.database.kysely;
    const address = await addressOf(world, 'globex');
    const stranger = await deployTestToken(world.anvil, 'standard', {
      symbol: 'XYZ',
      decimals: 18,
    });
    await stranger.write('mint', [address, parseEther('5')]);
    await sendNative(world, address, parseEther('0.0001'));
    await token.token.write('mint', [address, 9_000n]);
    await scan(world);
    await world.testClient.mine({ blocks: 2 });
    expect(await scan(world)).toMatchObject({ credited: 0 });
    const deposits = await listDeposits(db, 'globex', { limit: 10 });
    expect(deposits.map((d) => d.status).sort()).toEqual(['dust', 'dust', 'unregistered']);
    expect((await tenantBalance(db, 'globex', nativeBookOf(world.anvil.chainId)))?.available).toBe(
      0n,
    );
    // Registering it afterwards says what reached deposit addresses before (and credits none).
    const registered = await registerToken(
      { database: world.database, chains: world.chains },
      { chainId: world.anvil.chainId, address: stranger.address, alias: 'XYZ' },
    );
    expect(registered.unregisteredDeposits).toEqual({ count: 1, amount: parseEther('5') });
    expect((await listDeposits(db, 'globex', { limit: 10 })).map((d) => d.status).sort()).toEqual([
      'dust',
      'dust',
      'unregistered',
    ]);
  });

  it('a deposit a reorg removes before finality is never credited; mined again in another block, it is credited once', async () => {
    const db = world.database.kysely;
    const address = await addressOf(world, 'acme', 1);
    const sender = deployerClient(world.anvil);
    const raw = await sender.signTransaction(
      await sender.prepareTransactionRequest({ to: address, value: parseEther('2') }),
    );
    const before = await world.testClient.snapshot();
    const txHash = await sender.sendRawTransaction({ serializedTransaction: raw });
    await sender.waitForTransactionReceipt({ hash: txHash });
    expect(await scan(world)).toMatchObject({ detected: 1 });
    // The block that held it is replaced by others without it: the node forgets it.
    await world.testClient.revert({ id: before });
    await world.testClient.mine({ blocks: 4 });
    expect(await scan(world)).toMatchObject({ credited: 0, dropped: 1 });
    const native = nativeBookOf(world.anvil.chainId);
    const creditedBefore = (await tenantBalance(db, 'acme', native))!.available;
    const statusOf = async () =>
      (await listDeposits(db, 'acme', { limit: 10 }))
        .filter((d) => d.txHash === txHash)
        .map((d) => d.status);
    expect(await statusOf()).toEqual(['dropped']);

    // The same bytes mined again, in a block of the new branch: the same deposit, credited once.
    await sender.sendRawTransaction({ serializedTransaction: raw });
    await sender.waitForTransactionReceipt({ hash: txHash });
    expect(await scan(world)).toMatchObject({ detected: 0 });
    expect(await statusOf()).toEqual(['detected']);
    await world.testClient.mine({ blocks: 2 });
    expect(await scan(world)).toMatchObject({ credited: 1 });
    expect(await scan(world)).toMatchObject({ credited: 0 });
    expect(await statusOf()).toEqual(['credited']);
    expect((await tenantBalance(db, 'acme', native))!.available).toBe(
      creditedBefore + parseEther('2'),
    );
    await expectBooksBalanced(world.database);
  });

  it('a deposit made while nobody scanned is found by the catch-up, a chunk at a time', async () => {
    const db = world.database.kysely;
    const address = await addressOf(world, 'globex', 1);
    await sendNative(world, address, parseEther('0.5'));
    await world.testClient.mine({ blocks: 6 });
    const first = await scan(world, 3);
    expect(BigInt(first.read!.to) - BigInt(first.read!.from)).toBe(2n);
    for (let runs = 0; runs < 5; runs++) await scan(world, 3);
    const found = (await listDeposits(db, 'globex', { limit: 10 })).filter(
      (d) => d.address === address,
    );
    expect(found.map((d) => d.status)).toEqual(['credited']);
  });
});

describe('deposits through the API', () => {
  let api: ApiUnderTest | undefined;
  let bare: ApiUnderTest | undefined;
  afterAll(async () => {
    await api?.close();
    await bare?.close();
  });

  it('a tenant gets its address (the same on every call), and sees what reached it; a chain without a factory refuses', async () => {
    const withFactory: ChainRegistry = {
      chainIds: world.chains.chainIds,
      get: (chainId) => ({ ...world.chains.get(chainId), depositFactory: factory }),
    };
    api = await startApiWithoutWorkers({ ...world, chains: withFactory });
    bare = await startApiWithoutWorkers(world);
    const keys = await createKeys(world, ['globex']);
    const globex = api.as(keys.globex);
    const chainId = world.anvil.chainId;

    const first = await globex.depositAddress({ chainId, index: 7 });
    expect(first.address).toBe(depositAddressOf(factory, depositSalt('globex', chainId, 7)));
    expect(await globex.depositAddress({ chainId, index: 7 })).toEqual(first);
    expect((await globex.depositAddresses()).map((a) => a.index)).toContain(7);
    const refused = await apiRefusal(bare.as(keys.globex).depositAddress({ chainId }));
    expect([refused.status, refused.body.code]).toEqual([503, 'deposits_off']);

    await sendNative(world, first.address as Hex, parseEther('0.25'));
    await scan(world);
    await world.testClient.mine({ blocks: 2 });
    await scan(world);
    const seen = (await globex.deposits({ status: 'credited' })).filter(
      (d) => d.address === first.address,
    );
    expect(seen.map((d) => [d.asset, d.amount, d.logIndex])).toEqual([
      ['native', parseEther('0.25').toString(), -1],
    ]);

    // The tenant's reference and metadata for an address ride on each deposit found at it.
    const marks = { reference: 'cus_42-wallet', metadata: { customer: 'cus_42' } };
    const marked = await globex.depositAddress({ chainId, index: 8, ...marks });
    expect(marked).toMatchObject(marks);
    expect(await globex.depositAddress({ chainId, index: 8 })).toEqual(marked);
    await sendNative(world, marked.address as Hex, parseEther('0.5'));
    await scan(world);
    const [found] = (await globex.deposits()).filter((d) => d.address === marked.address);
    expect(found).toMatchObject(marks);
    const bad = await apiRefusal(globex.depositAddress({ chainId, index: 9, reference: '' }));
    expect([bad.status, bad.body.issues?.[0]?.field]).toEqual([400, 'body.reference']);
  });
});
