import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { parseUnits } from 'viem';
import { topUpSweepScheduleId } from '../../client/sweep-schedules';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { waitFor } from '../harness/stack/wait-for';
import { deployTestToken, type TestToken } from '../harness/stack/test-tokens';
import { depositAsset, registerToken } from '../../service/assets';
import { getIntent } from '../../store/intents';
import { startRelayerProcess, type RelayerProcess } from '../../workers/relayer-process';
import { createApiClient } from '../../cli/api-client';
import { freePort } from '../harness/stack/free-port';
import { createKeys } from '../harness/api';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { useWorld } from '../harness/test-world';

// Integration tier (~20 s): a token payout on a chain whose hot wallets hold none of the token.
// With no top-ups set, it says why it waits at once (its reason, /readyz), and ends with that
// reason when its send window runs out, not as a step that timed out; its hold released. With the
// chain's tokenTopUps, the treasury funds a hot wallet and the payout is paid.

const world = useWorld({ tenants: { acme: '1' } });
let api: { as: (key?: string) => ReturnType<typeof createApiClient> };
let relayer: RelayerProcess;
let keys: Record<'acme' | 'operator', string>;
let token: TestToken;

beforeAll(async () => {
  token = await deployTestToken(world.anvil, 'standard', { symbol: 'USDT', decimals: 6 });
  await registerToken(
    { database: world.database, chains: world.chains },
    { chainId: world.anvil.chainId, address: token.address, alias: 'USDT' },
  );
  await depositAsset(
    world.database,
    {
      tenantId: 'acme',
      chainId: world.anvil.chainId,
      asset: 'USDT',
      amount: parseUnits('1000', 6),
    },
    new Date(),
  );
  keys = await createKeys(world, ['acme']);
  // One process, worker and API: the API records the send window in each intent it starts.
  relayer = await startRelayerProcess(
    world.config({ API_PORT: String(await freePort()), SEND_WINDOW_MS: '8000' }),
    ['worker', 'api'],
  );
  api = { as: (key?: string) => createApiClient(relayer.apiUrl!, key) };
});
world.onStop(async () => {
  await relayer?.stop();
});

it('says at once that it waits for a funded wallet, and fails with no_funded_wallet, its hold released', async () => {
  const submitted = await api.as(keys.acme).submit(
    {
      chainId: world.anvil.chainId,
      to: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
      asset: 'USDT',
      decimalAmount: '250',
    },
    'unfunded-1',
  );
  const id = submitted.body.id;
  await waitFor(
    async () => (await api.as(keys.acme).get(id)).reasonCode === 'no_funded_wallet',
    'the intent says why it waits',
  );
  const waiting = await api.as(keys.acme).get(id);
  expect(waiting.status).toBe('held');
  expect(waiting.reason).toMatch(
    /holds 250 USDT on top of its transactions in flight: top one up \(the chain's tokenTopUps move USDT/,
  );
  const readiness = await api.as().call<{ warnings: string[] }>('GET', '/readyz');
  expect(readiness.body.warnings.join('\n')).toMatch(
    new RegExp(
      `1 intent waits on chain ${world.anvil.chainId} for a funded hot wallet \\(no_funded_wallet\\)`,
    ),
  );

  await waitFor(
    async () => (await getIntent(world.database.kysely, id)).status === 'failed',
    'the send window ran out',
    30_000,
  );
  // Both at once, so a failure shows the words the code came with.
  expect(await api.as(keys.acme).get(id)).toMatchObject({
    reasonCode: 'no_funded_wallet',
    reason: expect.stringMatching(
      /still waiting when its time ran out: (NoFundedWallet: )?no hot wallet .* holds 250 USDT/,
    ),
  });
  await expectBooksBalanced(world.database);
});

it("is paid once the chain's tokenTopUps fund a hot wallet from the treasury", async () => {
  await relayer.stop();
  const payee = privateKeyToAccount(generatePrivateKey()).address;
  const treasuryKey = world.anvil.keys[world.wallets.length]!;
  await token.write('mint', [privateKeyToAccount(treasuryKey).address, parseUnits('5000', 6)]);
  const dir = mkdtempSync(join(tmpdir(), 'token-top-ups-'));
  const chainsFile = join(dir, 'chains.yaml');
  writeFileSync(
    chainsFile,
    [
      'chains:',
      `  - chainId: ${world.anvil.chainId}`,
      '    name: home',
      `    rpc: [${world.env().RPC_URLS}]`,
      `    treasury: '${privateKeyToAccount(treasuryKey).address}'`,
      `    tokenTopUps: [{ token: '${token.address}', lowBalance: 100, topUpTarget: 1000 }]`,
      '',
    ].join('\n'),
  );
  try {
    relayer = await startRelayerProcess(
      world.config({
        API_PORT: String(await freePort()),
        CHAINS_FILE: chainsFile,
        CHAIN_ID: '',
        RPC_URLS: '',
        HOT_WALLET_KEYS: [...world.walletKeys, treasuryKey].join(','),
        TOP_UP_SWEEP_MS: '1000',
      }),
      ['worker', 'api'],
    );
    api = { as: (key?: string) => createApiClient(relayer.apiUrl!, key) };
    const submitted = await api.as(keys.acme).submit(
      {
        chainId: world.anvil.chainId,
        to: payee,
        asset: 'USDT',
        decimalAmount: '250',
      },
      'funded-by-top-up-1',
    );
    await waitFor(
      async () =>
        (await getIntent(world.database.kysely, submitted.body.id)).status === 'confirmed',
      'the payout is paid from a topped-up wallet',
      60_000,
    );
    expect(await token.balanceOf(payee)).toBe(parseUnits('250', 6));
    await expectBooksBalanced(world.database);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    // The sweep's schedule would go on firing on the shared dev server after the file.
    const connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
    const schedule = topUpSweepScheduleId(world.config().taskQueue, world.anvil.chainId);
    await new Client({ connection }).schedule
      .getHandle(schedule)
      .delete()
      .catch(() => undefined);
    await connection.close();
  }
});
