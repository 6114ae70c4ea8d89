import { randomUUID } from 'node:crypto';
import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createActivities } from '../../activities';
import { systemClock } from '../../activities/dependencies';
import { ApiError, type RelayerApiClient } from '../../cli/api-client';
import { getIntent } from '../../store/intents';
import type { Throttle } from '../../throttle/throttle';
import { createKeys, startApiWithoutWorkers, type ApiUnderTest } from '../harness/api';
import { failureType, runActivity as run } from '../harness/run-activity';
import { startTestThrottle } from '../harness/test-throttle';
import { useWorld } from '../harness/test-world';

const world = useWorld({ tenants: { acme: '10' }, wallets: 4 });
let api: ApiUnderTest;
let throttle: Throttle;
let operator: RelayerApiClient;
let tenant: RelayerApiClient;
beforeAll(async () => {
  api = await startApiWithoutWorkers(world, { tenantMaxInFlight: 50 });
  const keys = await createKeys(world, ['acme']);
  operator = api.as(keys.operator);
  tenant = api.as(keys.acme);
  throttle = await startTestThrottle();
});
world.onStop(async () => {
  await throttle?.close();
  await api?.close();
});

const activities = () =>
  createActivities({
    db: world.database,
    chains: world.chains,
    throttle,
    clock: systemClock,
    permitReleaseQueue: 'unused',
  });

/** Submits a payment of acme's through the API (pinned to `from` if given). */
const submit = (from?: string) =>
  tenant.submit(
    {
      chainId: world.anvil.chainId,
      ...(from !== undefined && { from }),
      to: privateKeyToAccount(generatePrivateKey()).address,
      amount: parseEther('0.01').toString(),
    },
    randomUUID(),
  );

/** Takes an admitted intent through its steps up to its send; answers the wallet that signed. */
async function sign(intentId: string) {
  const steps = activities();
  for (const step of [steps.markSettling, steps.hold, steps.broadcast])
    await run(step, { intentId });
  return (await getIntent(world.database.kysely, intentId)).from;
}

async function refusal(call: Promise<unknown>) {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, code: error.body.code };
    throw error;
  }
  throw new Error('the call succeeded');
}

describe("a tenant's wallet pool and retired wallets", () => {
  it('sends only from the pool, refuses what is outside it, and writes nothing on bad input', async () => {
    const [w0, w1, w2] = world.wallets;
    const { chainId } = world.anvil;
    expect(await refusal(tenant.setWalletPool('acme', chainId, [w1!]))).toEqual({
      status: 403,
      code: 'scope_missing',
    });
    expect(
      await refusal(operator.setWalletPool('acme', chainId, [w1!, `0x${'12'.repeat(20)}`])),
    ).toMatchObject({ status: 400, code: 'invalid_request' });
    // An empty pool would leave the tenant no wallet: refused, not read as "every wallet".
    expect(await refusal(operator.setWalletPool('acme', chainId, []))).toMatchObject({
      status: 400,
      code: 'invalid_request',
    });
    await operator.setWalletPool('acme', chainId, [w1!, w2!]);

    for (let i = 0; i < 4; i++) {
      const { body } = await submit();
      expect([w1, w2]).toContain(await sign(body.id));
    }
    expect(await refusal(submit(w0))).toMatchObject({ status: 400, code: 'invalid_request' });

    await operator.setWalletPool('acme', chainId, null);
    expect((await submit(w0)).status).toBe(202);
  });

  it('a retired wallet signs nothing new: unpinned intents go elsewhere, a pinned one fails unsigned', async () => {
    const [, , , w3] = world.wallets;
    const { chainId } = world.anvil;
    const { body: pinned } = await submit(w3);
    await operator.retireWallet(chainId, w3!, true);
    expect((await operator.wallets()).find((w) => w.address === w3)).toMatchObject({
      retired: true,
    });
    const steps = activities();
    await run(steps.markSettling, { intentId: pinned.id });
    await run(steps.hold, { intentId: pinned.id });
    expect(await failureType(run(steps.broadcast, { intentId: pinned.id }))).toBe('WalletRetired');
    expect(await getIntent(world.database.kysely, pinned.id)).toMatchObject({ txHash: null });
    expect(await refusal(submit(w3))).toMatchObject({ status: 400, code: 'invalid_request' });
    for (let i = 0; i < 4; i++) {
      const { body } = await submit();
      expect(await sign(body.id)).not.toBe(w3);
    }

    // Every wallet of its pool retired: the tenant is told at once.
    await operator.setWalletPool('acme', chainId, [w3!]);
    expect(await refusal(submit())).toMatchObject({ status: 400, code: 'invalid_request' });
    await operator.retireWallet(chainId, w3!, false);
    const { body } = await submit();
    expect(await sign(body.id)).toBe(w3);
    await operator.setWalletPool('acme', chainId, null);
  });

  it('adds a wallet by the signer holding its key; bad input and a second signer write nothing', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey()).address;
    const added = () => world.database.kysely.selectFrom('wallet_signers').selectAll().execute();
    expect(await refusal(tenant.addWallet(wallet, 'kms:alias/hot-9'))).toEqual({
      status: 403,
      code: 'scope_missing',
    });
    for (const [address, signer] of [
      [wallet, 'vault:secret/hot'],
      [wallet, 'kms:'],
      [wallet, 'remote:ftp://signer:21'],
      [wallet, 'remote:https://user:secret@signer:9000'],
      ['0x1234', 'kms:alias/hot-9'],
    ] as const) {
      expect(await refusal(operator.addWallet(address, signer))).toEqual({
        status: 400,
        code: 'invalid_request',
      });
    }
    expect(await added()).toEqual([]);

    expect(
      await operator.addWallet(wallet.toLowerCase(), 'remote:https://signer:9000/key'),
    ).toEqual({
      address: wallet,
      signer: 'remote:signer:9000',
    });
    // The same again changes nothing; another signer for it is refused.
    await operator.addWallet(wallet, 'remote:https://signer:9000/key');
    expect(await refusal(operator.addWallet(wallet, 'kms:alias/hot-9'))).toEqual({
      status: 400,
      code: 'invalid_request',
    });
    expect(await added()).toEqual([
      expect.objectContaining({ address: wallet, signer: 'remote:https://signer:9000/key' }),
    ]);
  });
});
