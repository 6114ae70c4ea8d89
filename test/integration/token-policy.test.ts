import { parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { RelayerApiClient } from '../../cli/api-client';
import { IntentStatus } from '../../domain/intent';
import { createTenant, deposit } from '../../store/ledger';
import { apiRefusal as refusal, createKeys, databaseSnapshot } from '../harness/api';
import { startApiWithoutWorkers, type ApiUnderTest } from '../harness/api';
import { registeredTestToken } from '../harness/test-token';
import { useWorld } from '../harness/test-world';

// Integration tier (~6 s): a payment policy on a token book (a USDC-like token, 6 decimals), as
// payment-policy.test.ts proves it on the native one: the most per intent, the 24 h and 7 day
// limits counted in the token's own units, the approval threshold; the native book apart.

const world = useWorld({ tenants: {} });
let api: ApiUnderTest;
let operator: RelayerApiClient;
const tenant: Record<string, RelayerApiClient> = {};
const tenants = ['perintent', 'window', 'approval'] as const;

beforeAll(async () => {
  for (const id of tenants) {
    await createTenant(world.database, { id, name: id, maxInFlight: 100 }, new Date());
    await deposit(world.database, id, parseEther('100'), new Date(), world.nativeBook);
  }
  await registeredTestToken(world, {
    alias: 'USDC',
    decimals: 6,
    tenants: Object.fromEntries(tenants.map((id) => [id, 1000n])),
  });
  api = await startApiWithoutWorkers(world, { tenantMaxInFlight: 100 });
  const keys = await createKeys(world, [...tenants]);
  operator = api.as(keys.operator);
  for (const id of tenants) tenant[id] = api.as(keys[id]);
});
world.onStop(() => api?.close());

/** `amount` USDC in its base units (6 decimals). */
const usdc = (amount: string) => {
  const [whole, fraction = ''] = amount.split('.');
  return (BigInt(whole!) * 10n ** 6n + BigInt(fraction.padEnd(6, '0'))).toString();
};
let keyCounter = 0;
const submit = (tenantId: string, amount: string, asset = 'USDC') =>
  tenant[tenantId]!.submit(
    {
      chainId: world.anvil.chainId,
      from: world.wallets[0]!,
      to: privateKeyToAccount(`0x${'7'.repeat(64)}`).address,
      asset,
      amount: asset === 'USDC' ? usdc(amount) : parseEther(amount).toString(),
    },
    `token-policy-${++keyCounter}`,
  );

it('most per intent on USDC: at it admitted, a micro-unit above refused in USDC units, nothing written; ETH apart', async () => {
  const set = await operator.setPolicyLimits('perintent', {
    chainId: world.anvil.chainId,
    asset: 'USDC',
    maxPerIntent: usdc('5'),
  });
  expect(set.limits).toEqual([expect.objectContaining({ asset: 'USDC', maxPerIntent: usdc('5') })]);
  expect((await submit('perintent', '5')).status).toBe(202);

  const before = await databaseSnapshot(world);
  const above = await refusal(submit('perintent', '5.000001'));
  expect([above.status, above.body.details]).toEqual([
    422,
    expect.objectContaining({ rule: 'max_per_intent', limit: '5000000', wouldBe: '5000001' }),
  ]);
  expect(above.body.message).toContain('at most 5 USDC an intent');
  expect(await databaseSnapshot(world)).toEqual(before);
  // The token's limit bounds its own book only: 10 ETH is no USDC.
  expect((await submit('perintent', '10', 'native')).status).toBe(202);
});

it('24 h and 7 day limits on USDC count the open USDC intents in USDC units', async () => {
  await operator.setPolicyLimits('window', {
    chainId: world.anvil.chainId,
    asset: 'USDC',
    perDay: usdc('8'),
    perWeek: usdc('9'),
  });
  expect((await submit('window', '3')).status).toBe(202);
  expect((await submit('window', '5')).status).toBe(202);
  const day = await refusal(submit('window', '0.000001'));
  expect(day.body.details).toMatchObject({
    rule: 'limit_24h',
    limit: '8000000',
    wouldBe: '8000001',
  });
  expect(day.body.message).toContain('at most 8 USDC in any 24 hours');
  // Native payments are not counted against the token's window.
  expect((await submit('window', '50', 'native')).status).toBe(202);

  await operator.setPolicyLimits('window', {
    chainId: world.anvil.chainId,
    asset: 'USDC',
    perDay: null,
    perWeek: usdc('9'),
  });
  expect((await submit('window', '1')).status).toBe(202);
  const week = await refusal(submit('window', '0.000001'));
  expect(week.body.details).toMatchObject({
    rule: 'limit_7d',
    limit: '9000000',
    wouldBe: '9000001',
  });
});

it('an approval threshold on USDC: at it the payment waits for a second key, below it does not', async () => {
  await operator.setPolicyLimits('approval', {
    chainId: world.anvil.chainId,
    asset: 'USDC',
    approvalThreshold: usdc('4'),
  });
  expect((await submit('approval', '3.999999')).body.status).toBe(IntentStatus.authorized);
  expect((await submit('approval', '4')).body.status).toBe(IntentStatus.awaitingApproval);
  // 4 ETH is below no threshold of its own.
  expect((await submit('approval', '4', 'native')).body.status).toBe(IntentStatus.authorized);
});
