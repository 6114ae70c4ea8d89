import { parseEther, parseGwei } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { IntentView } from '../../api/schemas/intents';
import type { RelayerApiClient } from '../../cli/api-client';
import type { Hex } from '../../domain/transfer';
import { tenantBalance } from '../../store/ledger';
import { startRelayerProcess, type RelayerProcess } from '../../workers/relayer-process';
import { apiRefusal, createKeys, startApiWithoutWorkers, type ApiUnderTest } from '../harness/api';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { waitFor } from '../harness/stack/wait-for';
import { useWorld } from '../harness/test-world';
import { paymentSentUnmined as sentUnmined } from '../harness/unmined-payments';

/**
 * A payment sent but not mined, sped up by its tenant or an operator (the `speedUp` update): its
 * payment signed again at its nonce with a higher bid, on a chain whose payments wait (automine
 * off). Tier: test; about 25 s (one API, one relayer process, anvil).
 */
const world = useWorld({ tenants: { acme: '10' }, wallets: 3, confirmations: 2 });
let api: ApiUnderTest;
let relayer: RelayerProcess;
let tenant: RelayerApiClient;
let operator: RelayerApiClient;
beforeAll(async () => {
  // Two confirmations: a payment mined one block deep is still `confirming`.
  api = await startApiWithoutWorkers(world);
  const keys = await createKeys(world, ['acme']);
  tenant = api.as(keys.acme);
  operator = api.as(keys.operator);
  relayer = await startRelayerProcess(
    world.config({ TASK_QUEUE: api.taskQueue, GAS_PAID_BY: 'tenant', SPEED_UPS_MAX: '2' }),
  );
  await world.testClient.setAutomine(false);
});
world.onStop(async () => {
  await world?.testClient.setAutomine(true);
  await relayer?.stop();
  await api?.close();
});

const paymentSentUnmined = (wallet: number) => sentUnmined(world, tenant, wallet);

/** Mines a block at a time until the payment ends (two confirmations). */
async function minedToTheEnd(intentId: string): Promise<IntentView> {
  await waitFor(
    async () => {
      if (['confirmed', 'failed'].includes((await tenant.get(intentId)).status)) return true;
      await world.testClient.mine({ blocks: 1 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      return false;
    },
    'the payment to be mined and confirmed',
    60_000,
  );
  return tenant.get(intentId);
}

/** What a refused speed-up must leave as it was: the intent's transactions and its trail. */
const trailOf = async (intentId: string) => ({
  attempts: await tenant.attempts(intentId),
  audit: (await operator.audit(intentId)).filter((entry) => entry.action !== 'resent'),
});

const native = async () => (await tenantBalance(world.database.kysely, 'acme', world.nativeBook))!;

describe('a speed-up of a payment sent but not mined', () => {
  it('signs the payment again at its nonce above the asked bid; the replacement is mined, paid once, its gas posted to the tenant', async () => {
    const before = await native();
    const payment = await paymentSentUnmined(0);
    const [first] = await tenant.attempts(payment.id);
    const asked = {
      maxFeePerGas: (BigInt(first!.maxFeePerGas) * 3n).toString(),
      maxPriorityFeePerGas: (BigInt(first!.maxPriorityFeePerGas) * 3n).toString(),
    };
    const sped = await tenant.call<IntentView>('POST', `/v1/intents/${payment.id}/speed-up`, {
      body: { ...asked, note: 'payroll is due' },
    });
    expect(sped.status).toBe(202);
    expect(sped.body).toMatchObject({ status: 'confirming', nonce: payment.nonce });
    expect(sped.body.txHash).not.toBe(payment.txHash);
    const attempts = await tenant.attempts(payment.id);
    expect(attempts.map((attempt) => attempt.cause)).toEqual(['first', 'fee_bump']);
    expect(attempts[1]).toMatchObject({ nonce: payment.nonce, txHash: sped.body.txHash });
    expect(BigInt(attempts[1]!.maxFeePerGas)).toBeGreaterThanOrEqual(BigInt(asked.maxFeePerGas));
    expect(BigInt(attempts[1]!.maxPriorityFeePerGas)).toBeGreaterThanOrEqual(
      BigInt(asked.maxPriorityFeePerGas),
    );
    const spedUp = (await tenant.audit(payment.id)).filter((entry) => entry.action === 'sped_up');
    expect(spedUp).toHaveLength(1);
    expect(spedUp[0]).toMatchObject({
      actor: expect.stringMatching(/^tenant acme key /),
      detail: { txHash: sped.body.txHash, replaces: payment.txHash, note: 'payroll is due' },
    });
    // The hold covers the most any bid within the caps costs (MAX_FEE_PER_TRANSFER_ETH).
    const gasHeld = (await native()).held - before.held - parseEther('0.25');
    expect(gasHeld).toBeGreaterThanOrEqual(BigInt(attempts[1]!.maxFeePerGas) * 21_000n);

    const ended = await minedToTheEnd(payment.id);
    expect(ended).toMatchObject({ status: 'confirmed', txHash: sped.body.txHash });
    // Only the replacement was mined: the first bytes can never be (the nonce is used).
    await expect(
      world.testClient.getTransactionReceipt({ hash: payment.txHash as Hex }),
    ).rejects.toThrow();
    const receipt = await world.testClient.getTransactionReceipt({ hash: ended.txHash as Hex });
    expect(receipt.effectiveGasPrice).toBeGreaterThan(BigInt(first!.maxFeePerGas));
    expect(await world.testClient.getBalance({ address: payment.to as Hex })).toBe(
      parseEther('0.25'),
    );
    const feePaid = receipt.gasUsed * receipt.effectiveGasPrice;
    expect(ended.feePaid).toBe(feePaid.toString());
    const after = await native();
    expect(after.held).toBe(before.held);
    expect(before.available - after.available).toBe(parseEther('0.25') + feePaid);
    await expectBooksBalanced(world.database);
  });

  it('refuses, naming why and writing nothing: above the caps, a bad bid, mined, after its cancel, past SPEED_UPS_MAX, ended, not signed', async () => {
    const payment = await paymentSentUnmined(1);
    const path = `/v1/intents/${payment.id}/speed-up`;
    const unchanged = await trailOf(payment.id);
    const refusal = async (body: object, caller = tenant) =>
      (await apiRefusal(caller.call('POST', path, { body }))).body;

    // Above the chain's cap (MAX_FEE_PER_GAS_GWEI, 500 by default).
    expect(await refusal({ maxFeePerGas: parseGwei('501').toString() })).toMatchObject({
      code: 'cannot_speed_up',
      message: expect.stringMatching(/above the caps/),
      details: { problem: 'above_cap', status: 'confirming' },
    });
    expect(await refusal({ maxFeePerGas: '12 gwei' })).toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/maxFeePerGas/),
    });
    expect(await refusal({ maxFeePerGas: '1000', maxPriorityFeePerGas: '2000' })).toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/maxPriorityFeePerGas must not be above maxFeePerGas/),
    });
    expect(await trailOf(payment.id)).toEqual(unchanged);

    // SPEED_UPS_MAX is 2 here: the third is refused.
    await operator.speedUp(payment.id, {});
    await operator.speedUp(payment.id, {});
    expect(await refusal({}, operator)).toMatchObject({
      code: 'cannot_speed_up',
      details: { problem: 'limit_reached' },
    });
    const causes = (await tenant.attempts(payment.id)).map((attempt) => attempt.cause);
    expect(causes).toEqual(['first', 'fee_bump', 'fee_bump']);

    // Mined one block deep (of two): refused, naming the block.
    await world.testClient.mine({ blocks: 1 });
    const mined = await refusal({});
    expect(mined).toMatchObject({ details: { problem: 'mined', status: 'confirming' } });
    expect(mined.message).toMatch(/was mined in block \d+/);
    const ended = await minedToTheEnd(payment.id);
    expect(await refusal({})).toMatchObject({
      code: 'cannot_speed_up',
      details: { problem: 'ended', status: ended.status },
    });

    // After its cancel: the nonce is being taken back.
    const cancelled = await paymentSentUnmined(2);
    await tenant.cancel(cancelled.id);
    expect(
      (await apiRefusal(tenant.call('POST', `/v1/intents/${cancelled.id}/speed-up`, {}))).body,
    ).toMatchObject({ code: 'cannot_speed_up', details: { problem: 'cancelling' } });
    await minedToTheEnd(cancelled.id);

    // Not signed yet: held back by notBefore.
    const { body: later } = await tenant.submit(
      {
        chainId: world.anvil.chainId,
        to: privateKeyToAccount(generatePrivateKey()).address,
        amount: '1',
        notBefore: new Date(Date.now() + 3_600_000).toISOString(),
      },
      `speed-up-later-${Date.now()}`,
    );
    expect(
      (await apiRefusal(tenant.call('POST', `/v1/intents/${later.id}/speed-up`, {}))).body,
    ).toMatchObject({ code: 'cannot_speed_up', details: { problem: 'not_signed' } });
    await tenant.cancel(later.id);
    await expectBooksBalanced(world.database);
  });
});
