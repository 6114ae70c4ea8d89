import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import {
  encodeFunctionData,
  keccak256,
  parseAbi,
  parseEther,
  toFunctionSelector,
  toHex,
  type Hex,
} from 'viem';
import type { RelayerApiClient, SubmitBody } from '../../cli/api-client';
import { IntentStatus, type Intent } from '../../domain/intent';
import { deployTestVault, type TestVault } from '../harness/stack/test-vault';
import { waitFor } from '../harness/stack/wait-for';
import { getIntent } from '../../store/intents';
import { createTenant, deposit, tenantBalance } from '../../store/ledger';
import { startRelayerProcess } from '../../workers/relayer-process';
import {
  apiRefusal as refusal,
  createKeys,
  databaseSnapshot,
  startApiWithoutWorkers,
  type ApiUnderTest,
} from '../harness/api';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { invariantViolations } from '../harness/invariants';
import { registeredTestToken, type RegisteredTestToken } from '../harness/test-token';
import { useWorld } from '../harness/test-world';

// Contract calls: allowed by the tenant's policy per contract and function, sent only from a
// wallet no other tenant may use, simulated before signing, judged by their receipt once mined,
// their native value held and captured like a transfer's.

const world = useWorld({ tenants: {} });
let api: ApiUnderTest;
let relayer: Awaited<ReturnType<typeof startRelayerProcess>> | undefined;
let operator: RelayerApiClient;
let caller: RelayerApiClient;
let vault: TestVault;
let token: RegisteredTestToken;

const vaultAbi = parseAbi([
  'function deposit(bytes32 ref) payable',
  'function record(uint256 value)',
]);
const ref = (name: string): Hex => keccak256(toHex(name));
const deposits: Record<string, bigint> = {
  calls: parseEther('100'),
  other: parseEther('100'),
};

beforeAll(async () => {
  for (const id of ['calls', 'other']) {
    await createTenant(world.database, { id, name: id, maxInFlight: 100 }, new Date());
    await deposit(world.database, id, deposits[id]!, new Date(), world.nativeBook);
  }
  vault = await deployTestVault(world.anvil);
  token = await registeredTestToken(world, { alias: 'CUSD', decimals: 6, tenants: { calls: 10n } });
  api = await startApiWithoutWorkers(world, { tenantMaxInFlight: 100 });
  const keys = await createKeys(world, ['calls', 'other']);
  operator = api.as(keys.operator);
  caller = api.as(keys.calls);
  relayer = await startRelayerProcess(world.config({ TASK_QUEUE: api.taskQueue }));
});
world.onStop(async () => {
  await relayer?.stop();
  await api?.close();
});

let keyCounter = 0;
const submitCall = (body: Partial<SubmitBody>) =>
  caller.submit(
    { chainId: world.anvil.chainId, to: vault.address, ...body } as SubmitBody,
    `call-${++keyCounter}`,
  );
const depositCall = (name: string) => ({
  abi: 'function deposit(bytes32 ref) payable',
  args: [ref(name)],
});
const ended = async (id: string): Promise<Intent> => {
  await waitFor(
    async () =>
      [IntentStatus.confirmed, IntentStatus.failed, IntentStatus.needsReview].includes(
        (await getIntent(world.database.kysely, id)).status as never,
      ),
    `intent ${id} ended`,
    60_000,
  );
  return getIntent(world.database.kysely, id);
};
const attemptsOf = (intentId: string) =>
  world.database.kysely
    .selectFrom('transaction_attempts')
    .select('tx_hash')
    .where('intent_id', '=', intentId)
    .execute();

describe('contract calls', () => {
  it('are sent only from a wallet no other tenant may use: without one, refused, nothing written', async () => {
    await operator.allowCall('calls', {
      chainId: world.anvil.chainId,
      contract: vault.address,
      function: 'deposit(bytes32)',
      maxValue: parseEther('1').toString(),
      label: 'treasury vault',
    });
    const before = await databaseSnapshot(world);
    // No pools: every tenant may use every wallet.
    const shared = await refusal(submitCall({ call: depositCall('a') }));
    expect(shared.status).toBe(422);
    expect(shared.body.code).toBe('no_exclusive_wallet');
    // A pool of its own, but the other tenant still has none (so it may use every wallet).
    await operator.setWalletPool('calls', world.anvil.chainId, [world.wallets[0]!]);
    expect((await refusal(submitCall({ call: depositCall('a') }))).body.code).toBe(
      'no_exclusive_wallet',
    );
    await operator.setWalletPool('other', world.anvil.chainId, [world.wallets[1]!]);
    const named = await refusal(submitCall({ call: depositCall('a'), from: world.wallets[1]! }));
    expect(named.body.code).toBe('no_exclusive_wallet');
    expect(named.body.message).toContain(world.wallets[1]!);
    const rows = (await databaseSnapshot(world)) as Record<string, unknown[]>;
    expect(rows.intents).toEqual((before as Record<string, unknown[]>).intents);
  });

  it('the policy names the contract and the function, and bounds the value; bad calls are refused naming the field; nothing written', async () => {
    const before = await databaseSnapshot(world);
    const notAllowed = await refusal(
      submitCall({ call: { abi: 'function record(uint256 value)', args: ['5'] } }),
    );
    expect(notAllowed.status).toBe(422);
    expect(notAllowed.body).toMatchObject({
      code: 'policy_violation',
      details: { rule: 'call_not_allowed' },
    });
    expect(notAllowed.body.message).toContain(toFunctionSelector('record(uint256)'));
    const tooMuch = await refusal(
      submitCall({ call: depositCall('b'), value: parseEther('1.5').toString() }),
    );
    expect(tooMuch.body).toMatchObject({
      code: 'policy_violation',
      details: { rule: 'call_value_limit', limit: parseEther('1').toString() },
    });
    const otherContract = await refusal(
      caller.submit(
        {
          chainId: world.anvil.chainId,
          to: token.token.address,
          call: { data: encodeFunctionData({ abi: vaultAbi, functionName: 'record', args: [1n] }) },
        },
        'to-token',
      ),
    );
    expect(otherContract.body).toMatchObject({ details: { rule: 'call_to_token' } });

    const field = async (body: Partial<SubmitBody>) => {
      const refused = await refusal(submitCall(body));
      expect(refused.status).toBe(400);
      return refused.body.issues!.map((issue) => issue.field);
    };
    expect(await field({ call: { abi: 'function deposit(bytes33 ref)', args: ['0x'] } })).toEqual([
      'body.call.abi',
    ]);
    expect(await field({ call: { abi: 'function deposit(bytes32 ref)', args: [42] } })).toEqual([
      'body.call.args.0',
    ]);
    expect(await field({ call: { abi: 'function deposit(bytes32 ref)', args: [] } })).toEqual([
      'body.call.args',
    ]);
    expect(await field({ call: { data: '0x1234' } })).toEqual(['body.call.data']);
    expect(await field({ call: depositCall('c'), amount: '1' })).toEqual(['body.amount']);
    expect(await field({ call: depositCall('c'), asset: 'CUSD' })).toEqual(['body.asset']);
    const batch = await refusal(
      caller.submitBatch(
        { items: [{ chainId: world.anvil.chainId, to: vault.address, call: depositCall('d') }] },
        'batch-call',
      ),
    );
    expect(batch.body.issues!.map((issue) => issue.field)).toEqual(['body.items.0.call']);
    // An operator cannot allow a call to a token: its payouts are transfers.
    const tokenCall = await refusal(
      operator.allowCall('calls', {
        chainId: world.anvil.chainId,
        contract: token.token.address,
        function: 'approve(address,uint256)',
        label: 'no',
      }),
    );
    expect(tokenCall.body.issues).toEqual([
      expect.objectContaining({ field: 'contract', message: expect.stringContaining('CUSD') }),
    ]);
    expect(await databaseSnapshot(world)).toEqual(before);
  });

  it('an allowed call with value is mined from the tenant’s own wallet: its value held, then captured', async () => {
    const value = parseEther('0.5');
    const submitted = await submitCall({ call: depositCall('paid'), value: value.toString() });
    expect(submitted.status).toBe(202);
    expect(submitted.body).toMatchObject({
      amount: value.toString(),
      asset: 'native',
      call: { selector: '0xb214faa5' },
    });
    const intent = await ended(submitted.body.id);
    expect(intent).toMatchObject({ status: IntentStatus.confirmed, from: world.wallets[0] });
    expect(await vault.deposited(ref('paid'))).toBe(value);
    const tx = await world.testClient.getTransaction({ hash: intent.txHash! });
    expect({ to: tx.to?.toLowerCase(), value: tx.value, input: tx.input }).toEqual({
      to: vault.address.toLowerCase(),
      value,
      input: intent.callData,
    });
    const hold = await world.database.kysely
      .selectFrom('holds')
      .select(['status', 'amount'])
      .where('intent_id', '=', intent.id)
      .executeTakeFirstOrThrow();
    expect({ ...hold, amount: BigInt(hold.amount) }).toEqual({ status: 'captured', amount: value });
    const balance = await tenantBalance(world.database.kysely, 'calls', world.nativeBook);
    expect(balance).toMatchObject({ held: 0n, available: parseEther('99.5') });
    await expectBooksBalanced(world.database);
  });

  it('a call given as bytes, sending nothing, is mined too', async () => {
    await operator.allowCall('calls', {
      chainId: world.anvil.chainId,
      contract: vault.address,
      function: 'record(uint256)',
      maxValue: '0',
      label: 'ledger entry',
    });
    const data = encodeFunctionData({ abi: vaultAbi, functionName: 'record', args: [7n] });
    const submitted = await submitCall({ call: { data } });
    expect(submitted.body).toMatchObject({ amount: '0', call: { data } });
    expect((await ended(submitted.body.id)).status).toBe(IntentStatus.confirmed);
    expect(await vault.recorded()).toBe(7n);
  });

  it('a call that reverts is refused before signing, with its reason; its hold released', async () => {
    const nonce = await world.chain.pendingNonce(world.wallets[0]!);
    const submitted = await submitCall({
      call: { abi: 'function record(uint256 value)', args: ['5000'] },
    });
    const intent = await ended(submitted.body.id);
    expect(intent).toMatchObject({ status: IntentStatus.failed, reasonCode: 'call_reverted' });
    expect(intent.reason).toContain('TestVault: value above 1000');
    expect(await attemptsOf(intent.id)).toHaveLength(0);
    expect(await world.chain.pendingNonce(world.wallets[0]!)).toBe(nonce);
    expect(await tenantBalance(world.database.kysely, 'calls', world.nativeBook)).toMatchObject({
      held: 0n,
    });
  });

  it('a call simulated while it would pass but mined once it reverts: failed by its receipt, its gas posted, its value released', async () => {
    const before = await tenantBalance(world.database.kysely, 'calls', world.nativeBook);
    await world.testClient.setAutomine(false);
    let intent: Intent;
    try {
      const submitted = await submitCall({
        call: depositCall('closed'),
        value: parseEther('0.25').toString(),
      });
      await waitFor(
        async () =>
          (await getIntent(world.database.kysely, submitted.body.id)).status ===
          IntentStatus.confirming,
        'the call sent',
        30_000,
      );
      // The vault closes in the same block, ahead of the call (a higher tip).
      await vault.close({ maxPriorityFeePerGas: parseEther('0.0000001'), wait: false });
      await world.testClient.mine({ blocks: 1 });
      await world.testClient.setAutomine(true);
      intent = await ended(submitted.body.id);
    } finally {
      await world.testClient.setAutomine(true);
    }
    expect(intent).toMatchObject({ status: IntentStatus.failed, reasonCode: 'reverted' });
    expect(intent.feePaid).toBeGreaterThan(0n);
    expect(await vault.deposited(ref('closed'))).toBe(0n);
    const after = await tenantBalance(world.database.kysely, 'calls', world.nativeBook);
    expect(after?.held).toBe(0n);
    // The value came back; the gas is the house's or the tenant's as GAS_PAID_BY says.
    expect(before!.available - after!.available).toBeLessThanOrEqual(intent.feePaid!);
    await expectBooksBalanced(world.database);
  });

  it('a call to an address without code is refused at admission naming it, unless its allowed call lets such a target by', async () => {
    const codeless = privateKeyToAccount(generatePrivateKey()).address;
    const call = {
      chainId: world.anvil.chainId,
      contract: codeless,
      function: 'deposit(bytes32)',
      label: 'not deployed yet',
    };
    expect(await operator.allowCall('calls', call)).toMatchObject({
      targetHasCode: false,
      allowNoCode: false,
    });
    const before = await databaseSnapshot(world);
    const refused = await refusal(submitCall({ to: codeless, call: depositCall('nowhere') }));
    expect({ status: refused.status, code: refused.body.code }).toEqual({
      status: 400,
      code: 'invalid_request',
    });
    expect(refused.body.issues).toEqual([
      {
        field: 'to',
        message: expect.stringMatching(
          new RegExp(
            `^${codeless} has no code on chain ${world.anvil.chainId}: a call to it runs nothing`,
          ),
        ),
      },
    ]);
    expect(await databaseSnapshot(world)).toEqual(before);
    expect((await operator.allowCall('calls', { ...call, allowNoCode: true })).allowNoCode).toBe(
      true,
    );
    // Allowed again without the setting keeps it, as it keeps a bound.
    expect((await operator.allowCall('calls', { ...call, label: 'later' })).allowNoCode).toBe(true);
    const admitted = await submitCall({ to: codeless, call: depositCall('later') });
    expect(admitted.status).toBe(202);
    expect((await ended(admitted.body.id)).status).toBe(IntentStatus.confirmed);
    await operator.disallowCall('calls', call);
  });

  it('allowed again without a bound keeps the bound it had, none removes it, and a bound above any supply is refused', async () => {
    const call = {
      chainId: world.anvil.chainId,
      contract: vault.address,
      function: 'record(uint256)',
      label: 'records',
    };
    const twoEther = parseEther('2').toString();
    expect((await operator.allowCall('calls', { ...call, maxValue: twoEther })).maxValue).toBe(
      twoEther,
    );
    expect((await operator.allowCall('calls', { ...call, label: 'renamed' })).maxValue).toBe(
      twoEther,
    );
    const listed = (await operator.allowedCalls('calls', world.anvil.chainId)).find(
      (allowed) => allowed.signature === 'record(uint256)',
    );
    expect(listed).toMatchObject({ maxValue: twoEther, label: 'renamed' });
    expect((await operator.allowCall('calls', { ...call, maxValue: null })).maxValue).toBeNull();
    const tooMuch = await refusal(
      operator.allowCall('calls', { ...call, maxValue: (10n ** 36n).toString() }),
    );
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.issues).toEqual([
      {
        field: 'body.maxValue',
        message: expect.stringMatching(/^maxValue must be at most 10{30} wei/),
      },
    ]);
    await operator.disallowCall('calls', call);
  });

  it('I1–I4 hold over every call: each one mined successfully once if confirmed, never otherwise', async () => {
    const violations = await invariantViolations({
      world,
      deposits: { ...deposits, ...token.deposits },
    });
    expect(violations).toEqual([]);
  });
});
