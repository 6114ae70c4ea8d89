import { parseEther, parseGwei } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { IntentView } from '../../api/schemas/intents';
import type { RelayerApiClient } from '../../cli/api-client';
import { temporal } from '@temporalio/proto';
import { intentWorkflow } from '../../client/intent-workflows';
import { tenantBalance } from '../../store/ledger';
import { startRelayerProcess, type RelayerProcess } from '../../workers/relayer-process';
import { apiRefusal, createKeys, startApiWithoutWorkers, type ApiUnderTest } from '../harness/api';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { waitFor } from '../harness/stack/wait-for';
import { useWorld } from '../harness/test-world';

/**
 * A payment's own fee ceiling (`maxFeePerGas`): while the chain's base fee is above it the payment
 * waits unsigned on a timer, holding nothing; under it, it is paid bidding no more. Tier: test;
 * about 20 s (one API, one relayer process, anvil with its base fee set by hand).
 */
const world = useWorld({
  tenants: { acme: '10' },
  wallets: 2,
  settings: { BASE_FEE_FLOOR_GWEI: '0.01' },
});
let api: ApiUnderTest;
let relayer: RelayerProcess;
let tenant: RelayerApiClient;
beforeAll(async () => {
  api = await startApiWithoutWorkers(world);
  tenant = api.as((await createKeys(world, ['acme'])).acme);
  relayer = await startRelayerProcess(world.config({ TASK_QUEUE: api.taskQueue }));
});
world.onStop(async () => {
  await relayer?.stop();
  await api?.close();
});

/** The head's base fee set to `gwei` (the block after it: 12.5% lower, as the chain's rule goes). */
async function baseFeeAt(gwei: string): Promise<void> {
  await world.testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei(gwei) });
  await world.testClient.mine({ blocks: 1 });
}

const payment = (extra: Record<string, string> = {}) => ({
  chainId: world.anvil.chainId,
  to: privateKeyToAccount(generatePrivateKey()).address,
  amount: parseEther('0.1').toString(),
  ...extra,
});

const held = async () =>
  (await tenantBalance(world.database.kysely, 'acme', world.nativeBook))!.held;

/** The workflow's activity failures (retries would show as failed or timed-out attempts). */
async function activityFailures(intentId: string): Promise<number> {
  const { events } = await intentWorkflow(api.client, intentId).handle.fetchHistory();
  const failed = [
    temporal.api.enums.v1.EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED,
    temporal.api.enums.v1.EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT,
  ];
  return events!.filter((event) => failed.includes(event.eventType!)).length;
}

describe("a payment's own fee ceiling", () => {
  afterEach(() => baseFeeAt('1'));

  it('waits unsigned while the base fee is above it, holding nothing and retrying no activity; paid under it once the fee drops', async () => {
    await baseFeeAt('50');
    const heldBefore = await held();
    const ceiling = parseGwei('10');
    const { body } = await tenant.submit(
      payment({ maxFeePerGas: ceiling.toString() }),
      `ceiling-${Date.now()}`,
    );
    expect(body.maxFeePerGas).toBe(ceiling.toString());
    await waitFor(
      async () => (await tenant.get(body.id)).reasonCode === 'fee_above_ceiling',
      'the payment to say it waits for the fee',
      30_000,
    );
    // A few looks later: still unsigned, nothing held, no nonce, no activity retried.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const waiting = await tenant.get(body.id);
    expect(waiting).toMatchObject({ status: 'authorized', nonce: null, txHash: null });
    expect(waiting.reason).toMatch(/base fee 50 gwei is above its maxFeePerGas 10 gwei/);
    expect(await tenant.attempts(body.id)).toEqual([]);
    expect(await held()).toBe(heldBefore);
    expect(await activityFailures(body.id)).toBe(0);

    await baseFeeAt('1');
    await waitFor(
      async () => (await tenant.get(body.id)).status === 'confirmed',
      'the payment to be paid once the fee dropped',
      30_000,
    );
    const attempts = await tenant.attempts(body.id);
    expect(attempts).toHaveLength(1);
    expect(BigInt(attempts[0]!.maxFeePerGas)).toBeLessThanOrEqual(ceiling);
    expect((await tenant.get(body.id)).reason).toBeNull();
    await expectBooksBalanced(world.database);
  });

  it('ends expired at its validUntil if the fee never drops, nothing held or signed', async () => {
    await baseFeeAt('50');
    const heldBefore = await held();
    const { body } = await tenant.submit(
      payment({
        maxFeePerGas: parseGwei('10').toString(),
        validUntil: new Date(Date.now() + 4000).toISOString(),
      }),
      `ceiling-expiry-${Date.now()}`,
    );
    let ended: IntentView | undefined;
    await waitFor(
      async () => (ended = await tenant.get(body.id)).status === 'expired',
      'the payment to expire waiting for the fee',
      30_000,
    );
    expect(ended!.txHash).toBeNull();
    expect(await tenant.attempts(body.id)).toEqual([]);
    expect(await held()).toBe(heldBefore);
    expect(await activityFailures(body.id)).toBe(0);
  });

  it('is refused naming the field when not whole wei or below the chain’s base-fee floor, and is part of the request an Idempotency-Key names', async () => {
    const key = `ceiling-refused-${Date.now()}`;
    const refusal = async (body: ReturnType<typeof payment> & { maxFeePerGas?: string }) =>
      (await apiRefusal(tenant.submit(body, key))).body;
    expect(await refusal(payment({ maxFeePerGas: '10 gwei' }))).toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/maxFeePerGas must be a whole number/),
    });
    // BASE_FEE_FLOOR_GWEI is 0.01 here: 10,000,000 wei.
    expect(await refusal(payment({ maxFeePerGas: '9999999' }))).toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/below chain 31337's base-fee floor of 10000000 wei/),
    });
    const first = payment({ maxFeePerGas: parseGwei('30').toString() });
    await tenant.submit(first, key);
    expect(await refusal({ ...first, maxFeePerGas: parseGwei('31').toString() })).toMatchObject({
      code: 'idempotency_key_reused',
    });
  });

  it("carries a batch item's own ceiling to its intent", async () => {
    const item = payment({ maxFeePerGas: parseGwei('30').toString() });
    const { body: batch } = await tenant.submitBatch(
      { items: [item] },
      `ceiling-batch-${Date.now()}`,
    );
    await waitFor(
      async () => (await tenant.batchResults(batch.id))[0]?.intentId != null,
      'the item to be admitted',
      30_000,
    );
    const { intentId } = (await tenant.batchResults(batch.id))[0]!;
    expect((await tenant.get(intentId!)).maxFeePerGas).toBe(parseGwei('30').toString());
  });
});
