import { parseEther, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { IntentView } from '../../api/schemas/intents';
import type { RelayerApiClient } from '../../cli/api-client';
import { ledgerAssetOf } from '../../domain/asset';
import { deployTestToken, type TestToken, type TestTokenKind } from '../harness/stack/test-tokens';
import { waitFor } from '../harness/stack/wait-for';
import { depositAsset } from '../../service/assets';
import { tenantBalance } from '../../store/ledger';
import { listAttempts } from '../../store/transaction-attempts';
import { startRelayerProcess, type RelayerProcess } from '../../workers/relayer-process';
import { ApiError } from '../../cli/api-client';
import {
  createKeys,
  databaseSnapshot,
  startApiWithoutWorkers,
  type ApiUnderTest,
} from '../harness/api';
import { invariantViolations } from '../harness/invariants';
import { useWorld } from '../harness/test-world';

/**
 * ERC-20 payouts on real anvil, with tokens compiled from source (dev/contracts) that misbehave as
 * deployed ones do: each ends as the chain says it should, the books kept per asset, the gas of
 * every mined transaction posted in native (charged to the tenant here: GAS_PAID_BY=tenant).
 */
const world = useWorld({ wallets: 2, tenants: { acme: '10' } });
let api: ApiUnderTest;
let relayer: RelayerProcess;
let tenant: RelayerApiClient;
let operator: RelayerApiClient;
const tokens = {} as Record<string, TestToken>;
/** tenant/asset → base units deposited, for the invariants. */
const deposits: Record<string, bigint> = { acme: parseEther('10') };

const tokenSpecs: [alias: string, kind: TestTokenKind, decimals: number, extra?: object][] = [
  ['TUSD', 'standard', 6],
  ['TUSDT', 'no-return', 6],
  ['TFALSE', 'false-return', 18],
  ['TFEE', 'fee-on-transfer', 18],
  ['TFEE.unflagged', 'fee-on-transfer', 18, { feeOnTransfer: false }],
  ['TBLOCK', 'blocklist', 6],
];

beforeAll(async () => {
  api = await startApiWithoutWorkers(world, { tenantMaxInFlight: 50 });
  const keys = await createKeys(world, ['acme']);
  tenant = api.as(keys.acme);
  operator = api.as(keys.operator);
  relayer = await startRelayerProcess(
    world.config({ TASK_QUEUE: api.taskQueue, GAS_PAID_BY: 'tenant' }),
  );
  for (const [alias, kind, decimals, extra] of tokenSpecs) {
    const token = await deployTestToken(world.anvil, kind, {
      symbol: alias.split('.')[0]!,
      decimals,
      feeBasisPoints: 100,
    });
    // The hot wallets hold the tokens they pay out; the fee probe needs one of them to.
    for (const wallet of world.wallets) {
      await token.write('mint', [wallet, 1_000_000n * 10n ** BigInt(decimals)]);
    }
    const { status } = await operator.call('POST', '/v1/assets', {
      body: { chainId: world.anvil.chainId, address: token.address, alias, ...extra },
    });
    expect(status).toBe(201);
    tokens[alias] = token;
    const asset = ledgerAssetOf(world.anvil.chainId, token.address);
    const amount = 1000n * 10n ** BigInt(decimals);
    await depositAsset(
      world.database,
      { tenantId: 'acme', chainId: world.anvil.chainId, asset: alias, amount },
      new Date(),
    );
    deposits[`acme/${asset}`] = amount;
  }
}, 120_000);

world.onStop(async () => {
  await relayer?.stop();
  await api?.close();
});

const recipient = () => privateKeyToAccount(generatePrivateKey()).address;

/** Submits a payment of `decimalAmount` of `asset` from the first hot wallet and waits for its end. */
async function pay(asset: string, decimalAmount: string, to: Hex = recipient()) {
  const { status, body } = await tenant.submit(
    { chainId: world.anvil.chainId, from: world.wallets[0]!, to, asset, decimalAmount },
    `pay-${asset}-${to}`,
  );
  expect(status).toBe(202);
  return { to, intent: await ended(body.id) };
}

async function ended(intentId: string): Promise<IntentView> {
  let intent: IntentView | undefined;
  await waitFor(
    async () => {
      intent = await tenant.get(intentId);
      return ['confirmed', 'failed', 'needs_review', 'cancelled'].includes(intent.status);
    },
    `intent ${intentId} to end`,
    60_000,
  );
  return intent!;
}

/** The gas the intent's mined transaction burned, from its receipt. */
async function gasOf(txHash: Hex): Promise<bigint> {
  const receipt = await world.testClient.getTransactionReceipt({ hash: txHash });
  return receipt.gasUsed * receipt.effectiveGasPrice;
}

const heldIn = async (alias: string) =>
  (await tenantBalance(
    world.database.kysely,
    'acme',
    ledgerAssetOf(world.anvil.chainId, tokens[alias]!.address),
  ))!;

describe('ERC-20 payouts, judged by the tokens’ Transfer logs', () => {
  it('registration reads symbol and decimals from the token and probes a fee on transfer', async () => {
    const list = await tenant.tokens(world.anvil.chainId);
    const byAlias = new Map(list.map((token) => [token.alias, token]));
    expect(byAlias.get('TUSD')).toMatchObject({
      symbol: 'TUSD',
      decimals: 6,
      feeOnTransfer: false,
    });
    expect(byAlias.get('TFEE')).toMatchObject({ decimals: 18, feeOnTransfer: true });
    // The operator's word wins over the probe.
    expect(byAlias.get('TFEE.unflagged')).toMatchObject({ feeOnTransfer: false });
  });

  it.each(['TUSD', 'TUSDT'])(
    '%s: 12.5 paid to the recipient, the books moved per asset, the gas posted in native',
    async (alias) => {
      const token = tokens[alias]!;
      const before = await heldIn(alias);
      const nativeBefore = (await tenantBalance(world.database.kysely, 'acme', world.nativeBook))!;
      const { to, intent } = await pay(alias, '12.5');
      expect(intent).toMatchObject({ status: 'confirmed', asset: token.address, reason: null });
      const amount = 125n * 10n ** BigInt(token.decimals - 1);
      expect(intent.amount).toBe(amount.toString());
      expect(await token.balanceOf(to)).toBe(amount);
      const after = await heldIn(alias);
      expect(before.available - after.available).toBe(amount);
      // The tenant paid the gas in native, exactly what the receipt says.
      const gas = await gasOf(intent.txHash as Hex);
      expect(intent.feePaid).toBe(gas.toString());
      const nativeAfter = (await tenantBalance(world.database.kysely, 'acme', world.nativeBook))!;
      expect(nativeBefore.available - nativeAfter.available).toBe(gas);
    },
  );

  it('a token that would return false is refused before anything is signed; the hold released', async () => {
    const token = tokens.TFALSE!;
    await token.write('setFailing', [true]);
    try {
      const before = await heldIn('TFALSE');
      const { intent } = await pay('TFALSE', '1');
      expect(intent.status).toBe('failed');
      expect(intent.reasonCode).toBe('token_transfer_refused');
      expect(intent.reason).toMatch(/^TokenTransferRefused: .*returns false/);
      expect(intent.txHash).toBeNull();
      expect(await listAttempts(world.database.kysely, intent.id)).toEqual([]);
      expect(await heldIn('TFALSE')).toEqual(before);
    } finally {
      await token.write('setFailing', [false]);
    }
  });

  it('a token that returns false once signed (status 1, nothing moved) fails: the token moved no funds', async () => {
    const token = tokens.TFALSE!;
    await world.testClient.setAutomine(false);
    try {
      const to = recipient();
      const { body } = await tenant.submit(
        {
          chainId: world.anvil.chainId,
          from: world.wallets[1]!,
          to,
          asset: 'TFALSE',
          amount: '1000',
        },
        'false-after-signing',
      );
      await waitFor(
        async () => (await tenant.get(body.id)).status === 'confirming',
        'the transfer to be sent',
        30_000,
      );
      // Between the check and the block: the token starts answering false (its `failing` slot).
      await world.testClient.setStorageAt({
        address: token.address,
        index: 5,
        value: `0x${'1'.padStart(64, '0')}`,
      });
      await world.testClient.mine({ blocks: 1 });
      const intent = await ended(body.id);
      expect(intent.status).toBe('failed');
      expect(intent.reasonCode).toBe('token_moved_nothing');
      expect(intent.reason).toMatch(/^TokenMovedNothing: /);
      expect(await token.balanceOf(to)).toBe(0n);
      const receipt = await world.testClient.getTransactionReceipt({ hash: intent.txHash as Hex });
      expect(receipt.status).toBe('success');
      // Nothing moved: the token amount goes back; the gas burned is the tenant's.
      expect(intent.feePaid).toBe((await gasOf(intent.txHash as Hex)).toString());
    } finally {
      await world.testClient.setAutomine(true);
      await world.testClient.setStorageAt({
        address: token.address,
        index: 5,
        value: `0x${'0'.padStart(64, '0')}`,
      });
    }
  });

  it('a fee-on-transfer token registered as one: confirmed, the delivered amount recorded', async () => {
    const { to, intent } = await pay('TFEE', '100');
    expect(intent.status).toBe('confirmed');
    expect(intent.deliveredAmount).toBe(parseEther('99').toString());
    expect(await tokens.TFEE!.balanceOf(to)).toBe(parseEther('99'));
  });

  it('the same token not registered as one: the shortfall waits in review, its hold kept', async () => {
    const { to, intent } = await pay('TFEE.unflagged', '100');
    expect(intent.status).toBe('needs_review');
    expect(intent.reasonCode).toBe('token_shortfall');
    expect(intent.reason).toMatch(/^TokenShortfall: .* \(1000000000000000000 short\)/);
    expect(await tokens['TFEE.unflagged']!.balanceOf(to)).toBe(parseEther('99'));
    expect((await heldIn('TFEE.unflagged')).held).toBe(parseEther('100'));
    // Decided as soon as the books say needs_review, before its workflow may have taken the
    // step's result: the decision waits for the review (workflows/payment-intent/review.ts).
    // The operator accepts what arrived: captured, the gas posted.
    const { status, body } = await operator.call(
      'POST',
      `/v1/intents/${intent.id}/review/confirm`,
      {
        body: { txHash: intent.txHash },
      },
    );
    expect({ status, state: (body as IntentView).status }).toEqual({
      status: 200,
      state: 'confirmed',
    });
    expect((await heldIn('TFEE.unflagged')).held).toBe(0n);
  });

  it('a paused token, and a blocked recipient, are refused with the token’s own reason', async () => {
    const token = tokens.TBLOCK!;
    await token.write('setPaused', [true]);
    try {
      const { intent } = await pay('TBLOCK', '5');
      expect(intent.status).toBe('failed');
      expect(intent.reasonCode).toBe('token_transfer_refused');
      expect(intent.reason).toMatch(/^TokenTransferRefused: .*it reverts: Pausable: paused$/);
    } finally {
      await token.write('setPaused', [false]);
    }
    const blocked = recipient();
    await token.write('setBlocked', [blocked, true]);
    const { intent } = await pay('TBLOCK', '5', blocked);
    expect(intent.status).toBe('failed');
    expect(intent.reasonCode).toBe('token_transfer_refused');
    expect(intent.reason).toMatch(/it reverts: Blocklistable: account is blocked$/);
    expect(intent.txHash).toBeNull();
    expect(await token.balanceOf(blocked)).toBe(0n);
  });

  it('a token the tenant names without a wallet is paid from a wallet holding it', async () => {
    const to = recipient();
    const { body } = await tenant.submit(
      { chainId: world.anvil.chainId, to, asset: 'TUSD', decimalAmount: '3' },
      'unpinned-token',
    );
    const intent = await ended(body.id);
    expect(intent.status).toBe('confirmed');
    expect(world.wallets).toContain(intent.from);
    expect(await tokens.TUSD!.balanceOf(to)).toBe(3_000_000n);
  });

  it('refuses an unregistered token, a decimal finer than the token, and an asset without an account: nothing written', async () => {
    const body = {
      chainId: world.anvil.chainId,
      to: recipient(),
      asset: 'TUSD',
      decimalAmount: '1',
    };
    const other = await deployTestToken(world.anvil, 'standard', { symbol: 'OTHER', decimals: 6 });
    await operator.call('POST', '/v1/assets', {
      body: { chainId: world.anvil.chainId, address: other.address, alias: 'OTHER' },
    });
    const before = await databaseSnapshot(world);
    const refusal = (submitted: Promise<unknown>) =>
      submitted.then(
        () => 'accepted',
        (error: unknown) =>
          error instanceof ApiError ? [error.status, error.body.code] : String(error),
      );
    const answers = await Promise.all([
      refusal(tenant.submit({ ...body, asset: 'NOPE' }, 'bad-1')),
      refusal(tenant.submit({ ...body, decimalAmount: '1.1234567' }, 'bad-2')),
      refusal(tenant.submit({ ...body, asset: 'OTHER' }, 'bad-3')),
    ]);
    expect(answers).toEqual([
      [422, 'unknown_asset'],
      [400, 'invalid_request'],
      [422, 'no_account'],
    ]);
    expect(await databaseSnapshot(world)).toEqual(before);
  });

  it('every invariant holds, per asset', async () => {
    expect(await invariantViolations({ world: world, deposits, wallets: world.wallets })).toEqual(
      [],
    );
  });
});
