import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createApiClient } from '../../cli/api-client';
import { freePort } from '../harness/stack/free-port';
import { waitFor } from '../harness/stack/wait-for';
import { auditTrail } from '../../store/audit-log';
import { getIntent } from '../../store/intents';
import { listAttempts } from '../../store/transaction-attempts';
import { startRelayerProcess, type RelayerProcess } from '../../workers/relayer-process';
import { createKeys } from '../harness/api';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { useWorld } from '../harness/test-world';

// Integration tier (~10 s; SQLite, and PostgreSQL in the postgres project): a send the provider
// lost (the node never saw the bytes) while the same wallet's next three payments go out behind
// it. The line is repaired with the lost payment's own bytes long before STUCK_AFTER_MS: no fee
// bump, no new nonce, all four confirmed.

const stuckAfterMs = 60_000;
const world = useWorld({ proxy: true, wallets: 1, tenants: { acme: '10' } });
let relayer: RelayerProcess;
let tenantKey: string;

beforeAll(async () => {
  ({ acme: tenantKey } = await createKeys(world, ['acme']));
  relayer = await startRelayerProcess(
    world.config({
      API_PORT: String(await freePort()),
      STUCK_AFTER_MS: String(stuckAfterMs),
      TENANT_MAX_IN_FLIGHT: '10',
    }),
    ['worker', 'api'],
  );
});
world.onStop(async () => {
  await relayer?.stop();
});

it('a lost send holds its wallet back only until the same bytes go out again: no bump, no new nonce, all four paid', async () => {
  const api = createApiClient(relayer.apiUrl!, tenantKey);
  const pay = async (n: number) =>
    (
      await api.submit(
        {
          chainId: world.anvil.chainId,
          to: privateKeyToAccount(generatePrivateKey()).address,
          amount: '1000',
        },
        `stranded-${n}`,
      )
    ).body.id;
  const droppedAt = Date.now();
  world.proxy!.dropSends(1);
  const first = await pay(0);
  await waitFor(
    () => world.proxy!.calls.some((call) => call.refused === 'dropped'),
    'the first send dropped',
  );
  const behind = [await pay(1), await pay(2), await pay(3)];
  const all = [first, ...behind];
  await waitFor(
    async () =>
      (await Promise.all(all.map((id) => getIntent(world.database.kysely, id)))).every(
        (intent) => intent.status === 'confirmed',
      ),
    'all four confirmed',
    stuckAfterMs / 2,
  );
  expect(Date.now() - droppedAt).toBeLessThan(stuckAfterMs);
  const nonces: number[] = [];
  for (const id of all) {
    const attempts = await listAttempts(world.database.kysely, id);
    // One signature each: the lost one went out again as it was, not outbid or re-signed.
    expect(attempts.map((attempt) => attempt.cause)).toEqual(['first']);
    nonces.push(attempts[0]!.nonce);
  }
  // The lost one was signed before the others were submitted; they took the next three in the
  // order their workflows reached the wallet, which is not their submission order.
  expect(nonces[0]).toBe(Math.min(...nonces));
  expect([...nonces].sort((a, b) => a - b)).toEqual([0, 1, 2, 3].map((n) => n + nonces[0]!));
  const [lost] = await listAttempts(world.database.kysely, first);
  const resends = (await auditTrail(world.database.kysely, first)).filter((entry) =>
    ['resent', 'line_repaired'].includes(entry.action),
  );
  expect(resends.length).toBeGreaterThanOrEqual(1);
  for (const entry of resends) expect(entry.detail).toMatchObject({ txHash: lost!.txHash });
  const sends = world.proxy!.calls.filter((call) => call.method === 'eth_sendRawTransaction');
  expect(sends.filter((call) => call.refused === 'dropped')).toHaveLength(1);
  await expectBooksBalanced(world.database);
});
