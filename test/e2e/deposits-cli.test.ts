import { Client, Connection } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { getAddress, parseEther, type Hex } from 'viem';
import { depositScanScheduleId } from '../../client/sweep-schedules';
import { freePort } from '../harness/stack/free-port';
import { startRelayerProcess, type RelayerProcess } from '../../workers/relayer-process';
import { mineUntil, sendNative } from '../harness/deposit-world';
import { relayerCliWith } from '../harness/relayer-cli';
import { useWorld } from '../harness/test-world';

// `relayer deposits …` against a relayer whose chain has a deposit factory (counterfactual: the
// addresses, the scan and the reconciliation need no code there; sweeps are left out).

jest.setTimeout(120_000);

const world = useWorld({ anvil: { slotsInAnEpoch: 1 }, tenants: { acme: '0' } });
const factory = getAddress('0x000000000000000000000000000000000000fac7');
const taskQueue = `deposits-cli-${randomUUID()}`;
let relayer: RelayerProcess;
beforeAll(async () => {
  relayer = await startRelayerProcess(
    world.config({
      API_PORT: String(await freePort()),
      TASK_QUEUE: taskQueue,
      DEPOSIT_FACTORY: factory,
      DEPOSIT_SCAN_MS: '1000',
      DEPOSIT_SWEEP_MS: '0',
    }),
    ['worker', 'api'],
  );
});
world.onStop(async () => {
  const connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
  const schedule = depositScanScheduleId(taskQueue, world.anvil.chainId);
  await new Client({ connection }).schedule
    .getHandle(schedule)
    .delete()
    .catch(() => undefined);
  await connection.close();
  await relayer?.stop();
});

const relayerCli = relayerCliWith(() => ({
  RELAYER_API_URL: relayer.apiUrl!,
  DATABASE_URL: world.databaseUrl,
}));

const keyOf = async (...args: string[]) =>
  (
    JSON.parse((await relayerCli(['keys', 'create', ...args, '--json'])).stdout) as {
      apiKey: string;
    }
  ).apiKey;

it('a tenant gets its address and sees its deposit credited; an operator reconciles: 0, then value that arrived without a transaction', async () => {
  const chainId = String(world.anvil.chainId);
  const tenant = { RELAYER_API_KEY: await keyOf('--tenant', 'acme') };
  const operator = { RELAYER_API_KEY: await keyOf('--operator') };
  const asked = await relayerCli(['deposits', 'address', '--chain-id', chainId, '--json'], tenant);
  expect(asked).toMatchObject({ code: 0 });
  const { address } = JSON.parse(asked.stdout) as { address: Hex };
  expect((await relayerCli(['deposits', 'address', '--chain-id', chainId], tenant)).stdout).toBe(
    `${address} (chain ${chainId}, #0)\n`,
  );
  expect((await relayerCli(['deposits', 'addresses'], tenant)).stdout).toContain(address);
  expect(await relayerCli(['deposits', 'address', '--chain-id', 'x'], tenant)).toMatchObject({
    code: 2,
    stderr: expect.stringMatching(/--chain-id/),
  });

  await sendNative(world, address, parseEther('0.3'));
  await mineUntil(
    world,
    async () =>
      (await relayerCli(['deposits', 'list', '--status', 'credited'], tenant)).stdout.includes(
        '0.3 ETH',
      ),
    'the deposit credited',
  );
  expect((await relayerCli(['balance'], tenant)).stdout).toMatch(/0\.3/);

  const reconciled = await relayerCli(['deposits', 'reconcile', '--chain-id', chainId], operator);
  expect(reconciled).toMatchObject({ code: 0, stdout: expect.stringMatching(/0 difference\(s\)/) });
  // In the asset's units, as `balance` shows them.
  expect(reconciled.stdout).toMatch(/credited 0\.3 ETH/);
  // A tenant's key may not reconcile.
  expect(await relayerCli(['deposits', 'reconcile', '--chain-id', chainId], tenant)).toMatchObject({
    code: expect.any(Number),
    stderr: expect.stringMatching(/scope_missing: this needs the scope wallets:admin/),
  });

  // Value that reached the address without a transaction to it (as a contract's internal call
  // sends it): never detected, found by the reconciliation.
  const held = await world.testClient.getBalance({ address });
  await world.testClient.setBalance({ address, value: held + parseEther('0.05') });
  await world.testClient.mine({ blocks: 2 });
  let report = { differences: 0, lines: [] as { asset: string; difference: string }[] };
  await mineUntil(
    world,
    async () => {
      const answer = await relayerCli(
        ['deposits', 'reconcile', '--chain-id', chainId, '--json'],
        operator,
      );
      report = JSON.parse(answer.stdout) as typeof report;
      return answer.code === 1 && report.differences === 1;
    },
    'the reconciliation to find the difference',
  );
  expect(report.lines).toEqual([
    expect.objectContaining({ asset: 'native', difference: parseEther('0.05').toString() }),
  ]);
  const ready = (await (await fetch(`${relayer.apiUrl}/readyz`)).json()) as { warnings: string[] };
  expect(ready.warnings).toEqual(
    expect.arrayContaining([expect.stringMatching(/deposits on chain \d+: 1 difference/)]),
  );
  const metrics = await (await fetch(`${relayer.apiUrl}/metrics`)).text();
  expect(metrics).toMatch(new RegExp(`relayer_deposit_differences\\{chain_id="${chainId}"\\} 1`));
  // The scans' background reads are counted with every other call.
  expect(metrics).toMatch(/relayer_rpc_requests_total\{[^}]*method="eth_getLogs"/);
});
