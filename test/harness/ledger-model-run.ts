import { Client, Connection } from '@temporalio/client';
import fc from 'fast-check';
import { parseEther, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { crashPoints, type CrashPoint } from '../../activities/failpoints';
import { createTenant, deposit } from '../../store/ledger';
import { ErrorName } from '../../domain/error-catalogue';
import { reasonCodeOfError } from '../../domain/reason-codes';
import { submitIntent } from '../../service/submit-intent';
import { CrashingWorkers } from './crashing-workers';
import { seededRandom, type FaultSettings } from './fault-settings';
import { invariantViolations } from './invariants';
import { waitUntilSettled } from './intents';
import { registeredTestToken, type RegisteredTestToken } from './test-token';
import type { TestWorld, WorldInTest } from './test-world';

/** The world a model run needs: a proxy, three wallets, tenants of its own per run. */
export const ledgerModelWorld = { proxy: true, wallets: 3, tenants: {} };

const milli = parseEther('0.001');

/** Payments in the native coin (milli-ether) or in a 6-decimal token (milli-tokens). */
const assets = ['native', 'token'] as const;
type Asset = (typeof assets)[number];
const unitOf: Record<Asset, bigint> = { native: milli, token: 1000n };
const tokenAlias = 'MTOK';

/** What a run submits, in order: payments (some under a reused Idempotency-Key) and bad ones. */
type Operation =
  | {
      kind: 'pay';
      tenant: number;
      wallet: number;
      asset: Asset;
      amount: number;
      key: number | null;
    }
  | { kind: 'invalid'; problem: (typeof invalidProblems)[number] };

const invalidProblems = [
  'bad-address',
  'zero-amount',
  'unknown-tenant',
  'foreign-wallet',
  'unknown-asset',
] as const;

const operation: fc.Arbitrary<Operation> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('pay' as const),
      tenant: fc.nat(2),
      wallet: fc.nat(2),
      asset: fc.constantFrom(...assets),
      amount: fc.integer({ min: 1, max: 4 }),
      key: fc.option(fc.nat(3), { freq: 2 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('invalid' as const),
      problem: fc.constantFrom(...invalidProblems),
    }),
  },
);

const someDeposits = fc.tuple(
  fc.integer({ min: 2, max: 12 }),
  fc.integer({ min: 2, max: 12 }),
  fc.integer({ min: 2, max: 12 }),
);

const scenario = fc.record({
  /** Each tenant's deposit per asset, in milli-units: small enough that some runs overdraw. */
  deposits: fc.record({ native: someDeposits, token: someDeposits }),
  operations: fc.array(operation, { minLength: 4, maxLength: 14 }),
  crash: fc.option(fc.tuple(fc.constantFrom(...crashPoints), fc.integer({ min: 1, max: 3 })), {
    freq: 3,
  }),
});

type Outcome = { intentId: string; created: boolean } | { error: string };

let token: RegisteredTestToken;

let run = 0;

/**
 * Random histories (fast-check, `settings.runs` of them) of payments over three tenants with
 * small deposits and three wallets, reused Idempotency-Keys (same or other body) and bad requests,
 * under a random crash point: the outcome of every request and every tenant's end state compared
 * with a sequential model of the ledger, recipients' on-chain balances, I1–I4.
 */
export async function ledgerModelRun(world: WorldInTest, settings: FaultSettings): Promise<void> {
  const { seed } = seededRandom('model', settings);
  token = await registeredTestToken(world, { alias: tokenAlias, decimals: 6, tenants: {} });
  const connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
  const client = new Client({ connection });
  try {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ deposits, operations, crash }) => {
        run++;
        const problems = await runScenario(world, client, run, deposits, operations, crash);
        expect(problems).toEqual([]);
      }),
      // Each run drives real processes for seconds: no shrinking, the seed replays the run.
      { seed, numRuns: settings.runs, endOnFailure: true },
    );
  } finally {
    await connection.close();
  }
}

async function runScenario(
  world: WorldInTest,
  client: Client,
  run: number,
  depositsMilli: Record<Asset, [number, number, number]>,
  operations: Operation[],
  crash: [CrashPoint, number] | null,
): Promise<string[]> {
  const taskQueue = `model-${run}`;
  const tenants = depositsMilli.native.map((_, i) => `model${run}t${i}`);
  const deposited = (t: number, asset: Asset) => BigInt(depositsMilli[asset][t]!) * unitOf[asset];
  const now = new Date();
  for (const [i, tenant] of tenants.entries()) {
    await createTenant(world.database, { id: tenant, name: tenant }, now);
    await deposit(world.database, tenant, deposited(i, 'native'), now, world.nativeBook);
    await deposit(world.database, tenant, deposited(i, 'token'), now, token.ledgerAsset);
  }
  const workers = new CrashingWorkers(
    async (env) => (await world.spawnWorkers(1, { TASK_QUEUE: taskQueue, ...env }))[0]!,
    new Map(crash ? [crash] : []),
    1,
  );
  await workers.start();

  const deps = { database: world.database, client, taskQueue };
  // A repeated Idempotency-Key repeats the whole request, recipient included.
  const recipients = new Map<string, Address>();
  const recipientFor = (op: Operation): Address => {
    const fresh = () => privateKeyToAccount(generatePrivateKey()).address;
    if (op.kind !== 'pay' || op.key === null) return fresh();
    const key = `${op.tenant}/k${op.key}`;
    if (!recipients.has(key)) recipients.set(key, fresh());
    return recipients.get(key)!;
  };
  const outcomes: Outcome[] = [];
  for (const op of operations) {
    const to = recipientFor(op);
    const request =
      op.kind === 'pay'
        ? {
            tenantId: tenants[op.tenant],
            chainId: world.anvil.chainId,
            from: world.wallets[op.wallet],
            to,
            ...(op.asset === 'token' && { asset: tokenAlias }),
            amount: (BigInt(op.amount) * unitOf[op.asset]).toString(),
          }
        : invalidRequest(world, tenants[0]!, to, op.problem);
    const key = op.kind === 'pay' && op.key !== null ? { idempotencyKey: `k${op.key}` } : {};
    outcomes.push(
      await submitIntent(deps, request, key).then(
        ({ intent, created }) => ({ intentId: intent.id, created }),
        (error: Error) => ({ error: error.name }),
      ),
    );
  }
  const created = outcomes.filter((o) => 'intentId' in o && o.created).length;
  const before = await world.database.kysely.selectFrom('intents').select('id').execute();
  await waitUntilSettled(world, before.length, 240_000);
  await workers.stop();

  // The model: a sequential ledger per tenant that knows which requests are the same intent.
  const problems: string[] = [...workers.unexpectedExits];
  const sameIntent = new Map<string, { body: string; index: number }>();
  const intentOf = new Map<number, string>();
  for (const [index, op] of operations.entries()) {
    const outcome = outcomes[index]!;
    const says = (expected: string) => {
      const actual = 'error' in outcome ? outcome.error : outcome.created ? 'created' : 'existing';
      if (actual !== expected)
        problems.push(`operation ${index} (${JSON.stringify(op)}): ${actual}, model ${expected}`);
    };
    if (op.kind === 'invalid') {
      says(
        op.problem === 'unknown-tenant'
          ? ErrorName.unknownTenant
          : op.problem === 'unknown-asset'
            ? ErrorName.unknownAsset
            : ErrorName.invalidIntent,
      );
      continue;
    }
    const key = op.key === null ? undefined : `${op.tenant}/k${op.key}`;
    const earlier = key === undefined ? undefined : sameIntent.get(key);
    const body = JSON.stringify([op.wallet, op.asset, op.amount]);
    if (earlier && earlier.body !== body) {
      says(ErrorName.intentConflict);
    } else if (earlier && intentOf.has(earlier.index)) {
      says('existing');
      if ('intentId' in outcome && outcome.intentId !== intentOf.get(earlier.index)) {
        problems.push(`operation ${index}: a second intent under ${key}`);
      }
    } else if ('error' in outcome && outcome.error === ErrorName.insufficientBalance) {
      // Refused at admission: allowed only where the tenant could not have paid (checked below).
    } else {
      says('created');
      if ('intentId' in outcome) intentOf.set(index, outcome.intentId);
      if (key !== undefined) sameIntent.set(key, { body, index });
    }
  }

  const rows = await world.database.kysely
    .selectFrom('intents')
    .selectAll()
    .where('tenant_id', 'in', tenants)
    .execute();
  if (rows.length !== created) problems.push(`${rows.length} intents stored, ${created} created`);
  const assetOfRow = (row: { asset: string }): Asset =>
    row.asset === 'native' ? 'native' : 'token';
  for (const [t, tenant] of tenants.entries()) {
    for (const asset of assets) {
      problems.push(...modelOf(tenant, t, asset));
    }
  }
  /** The sequential ledger of one tenant in one asset, against what the relayer did. */
  function modelOf(tenant: string, t: number, asset: Asset): string[] {
    const found: string[] = [];
    const own = rows.filter((row) => row.tenant_id === tenant && assetOfRow(row) === asset);
    const paid = own
      .filter((row) => row.status === 'confirmed')
      .reduce((sum, row) => sum + BigInt(row.amount), 0n);
    const left = deposited(t, asset) - paid;
    const ours = (op: Operation): op is Extract<Operation, { kind: 'pay' }> =>
      op.kind === 'pay' && op.tenant === t && op.asset === asset;
    const wanted = operations.flatMap((op, index) =>
      ours(op) && intentOf.has(index) ? [BigInt(op.amount) * unitOf[asset]] : [],
    );
    const refusedAtAdmission = operations.flatMap((op, index) => {
      const outcome = outcomes[index]!;
      return ours(op) && 'error' in outcome && outcome.error === ErrorName.insufficientBalance
        ? [BigInt(op.amount) * unitOf[asset]]
        : [];
    });
    // Whoever was refused for want of money asked for more than was left in the end.
    for (const row of own.filter((r) => r.status !== 'confirmed')) {
      if (
        row.status !== 'failed' ||
        row.reason_code !== reasonCodeOfError(ErrorName.insufficientBalance)
      ) {
        found.push(
          `${row.id} of ${tenant} ended ${row.status} (${row.reason_code}): ${row.reason}`,
        );
      } else if (BigInt(row.amount) <= left) {
        found.push(`${row.id} of ${tenant} failed for want of ${asset}, yet ${left} is left`);
      }
    }
    for (const amount of refusedAtAdmission) {
      if (amount <= left) {
        found.push(`${tenant} refused ${amount} of ${asset} at admission, yet ${left} is left`);
      }
    }
    const all = [...wanted, ...refusedAtAdmission].reduce((sum, amount) => sum + amount, 0n);
    if (all <= deposited(t, asset) && paid !== all) {
      found.push(`${tenant} could pay all ${all} of ${deposited(t, asset)} ${asset}, paid ${paid}`);
    }
    return found;
  }
  for (const row of rows.filter((r) => r.status === 'confirmed')) {
    const address = row.to_address as Address;
    const balance =
      assetOfRow(row) === 'native'
        ? await world.testClient.getBalance({ address })
        : await token.token.balanceOf(address);
    if (balance !== BigInt(row.amount))
      problems.push(`${row.to_address} holds ${balance}, not ${row.amount} (${row.asset})`);
  }
  const deposits = Object.fromEntries(
    tenants.flatMap((tenant, i) => [
      [tenant, deposited(i, 'native')],
      [`${tenant}/${token.ledgerAsset}`, deposited(i, 'token')],
    ]),
  );
  problems.push(...(await invariantViolations({ world, deposits, proxy: world.proxy })));
  console.log(
    `model run ${run}: ${operations.length} operations, ${created} intents, crash ${crash?.join('@') ?? 'none'}` +
      ` (${workers.crashes.length ? 'reached' : 'not reached'}): ${problems.length} problems`,
  );
  return problems;
}

function invalidRequest(
  world: TestWorld,
  tenantId: string,
  to: Address,
  problem: (typeof invalidProblems)[number],
): Record<string, unknown> {
  const good = {
    tenantId,
    chainId: world.anvil.chainId,
    from: world.wallets[0],
    to,
    amount: '1000',
  };
  switch (problem) {
    case 'bad-address':
      return { ...good, to: '0x12345' };
    case 'zero-amount':
      return { ...good, amount: '0' };
    case 'unknown-tenant':
      return { ...good, tenantId: 'nobody' };
    case 'foreign-wallet':
      return { ...good, from: to };
    case 'unknown-asset':
      return { ...good, asset: 'NOPE' };
  }
}
