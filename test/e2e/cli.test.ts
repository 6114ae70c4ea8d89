import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../stack/free-port';
import { startRelayerProcess, type RelayerProcess } from '../../workers/relayer-process';
import { databaseSnapshot } from '../support/api';
import { useTestWorld } from '../support/test-world';

const suite = useTestWorld();
let relayer: RelayerProcess;
beforeAll(async () => {
  relayer = await startRelayerProcess(
    suite.world().config({ API_PORT: String(await freePort()), TASK_QUEUE: `cli-${randomUUID()}` }),
  );
});
afterAll(() => relayer?.stop());

/** `npm run relayer -- …args` as a user runs it; never throws, returns what it printed. */
async function relayerCli(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'cli/relayer.ts', ...args],
      {
        cwd: resolve(__dirname, '../..'),
        env: {
          ...process.env,
          RELAYER_API_URL: relayer.apiUrl!,
          DATABASE_URL: suite.world().databaseUrl,
          ...env,
        },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('the relayer CLI', () => {
  it('creates a tenant and its key, submits and waits, lists, and answers in JSON with exit codes', async () => {
    const world = suite.world();
    const created = await relayerCli(['tenants', 'create', 'cli-co', '--deposit', '1', '--json']);
    expect(created).toMatchObject({ code: 0 });
    expect(JSON.parse(created.stdout)).toMatchObject({
      id: 'cli-co',
      available: '1000000000000000000',
    });
    const key = await relayerCli([
      'keys',
      'create',
      '--tenant',
      'cli-co',
      '--label',
      'ci',
      '--json',
    ]);
    const { apiKey } = JSON.parse(key.stdout) as { apiKey: string };
    const env = { RELAYER_API_KEY: apiKey };
    const payment = [
      '--chain-id',
      String(world.anvil.chainId),
      '--from',
      world.wallets[0]!,
      '--to',
      world.wallets[1]!,
    ];

    const submitted = await relayerCli(
      ['submit', ...payment, '--eth', '0.01', '--idempotency-key', 'cli-1', '--wait', '--json'],
      env,
    );
    expect(submitted).toMatchObject({ code: 0 });
    const intent = JSON.parse(submitted.stdout) as { id: string; status: string; txHash: string };
    expect(intent).toMatchObject({ status: 'confirmed', txHash: expect.stringMatching(/^0x/) });

    const listed = await relayerCli(['list'], env);
    expect(listed.stdout).toContain(intent.id);
    expect(listed.stdout).toMatch(/1 intents/);

    expect(await relayerCli(['cancel', intent.id, '--json'], env)).toMatchObject({
      code: 5,
      stderr: expect.stringContaining('"code":"not_cancellable"'),
    });
    expect(await relayerCli(['status', 'pi_nope'], env)).toMatchObject({
      code: 3,
      stderr: expect.stringContaining('not_found'),
    });
    expect(await relayerCli(['list'], { RELAYER_API_KEY: 'rly_wrong' })).toMatchObject({ code: 4 });
  });

  it('refuses bad flags with exit code 2, naming the flag, and writes nothing', async () => {
    const world = suite.world();
    const before = await databaseSnapshot(world);
    const payment = [
      '--chain-id',
      String(world.anvil.chainId),
      '--from',
      world.wallets[0]!,
      '--to',
      world.wallets[1]!,
    ];
    const cases: [string[], RegExp][] = [
      [['submit', ...payment, '--eth', 'lots'], /--eth: must be a decimal amount/],
      [['submit', ...payment, '--eth', '1', '--wei', '5'], /--eth <ether> or --wei <wei>/],
      [['submit', ...payment.slice(2), '--eth', '1'], /--chain-id/],
      [
        ['submit', '--chain-id', 'x', '--from', 'a', '--to', 'b', '--eth', '1'],
        /--chain-id: must be a whole number/,
      ],
      [['tenants', 'create', 'Bad Tenant!'], /tenant: tenantId must be/],
      [
        ['keys', 'create', '--tenant', 'a', '--operator'],
        /exactly one of --tenant <id> or --operator/,
      ],
      [['frobnicate'], /unknown command/],
    ];
    for (const [args, message] of cases) {
      const result = await relayerCli(args, { RELAYER_API_KEY: 'rly_x' });
      expect({ args, code: result.code, stderr: result.stderr }).toMatchObject({
        args,
        code: 2,
        stderr: expect.stringMatching(message),
      });
    }
    expect(await databaseSnapshot(world)).toEqual(before);
  });
});
