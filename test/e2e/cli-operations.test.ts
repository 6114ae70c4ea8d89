import { waitFor } from '../harness/stack/wait-for';
import { useCliRelayer } from '../harness/relayer-cli';

const { world, relayerCli } = useCliRelayer();

describe('the relayer CLI: pauses, schedules, policies and contract calls', () => {
  it('pauses a tenant (its payment waits, a deadline given as a span), lists the pause, resumes it: the payment is paid', async () => {
    await relayerCli(['tenants', 'create', 'halted', '--deposit', '1']);
    const keyOf = async (...args: string[]) =>
      (
        JSON.parse((await relayerCli(['keys', 'create', ...args, '--json'])).stdout) as {
          apiKey: string;
        }
      ).apiKey;
    const operator = { RELAYER_API_KEY: await keyOf('--operator', '--scope', 'review') };
    const tenant = { RELAYER_API_KEY: await keyOf('--tenant', 'halted') };
    expect(await relayerCli(['pause', '--tenant', 'halted'], operator)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("required option '--note <text>'"),
    });
    expect(
      await relayerCli(['pause', '--all', '--tenant', 'halted', '--note', 'x'], operator),
    ).toMatchObject({ code: 2, stderr: expect.stringContaining('exactly one of --all') });
    const paused = await relayerCli(
      ['pause', '--tenant', 'halted', '--note', 'incident 9', '--json'],
      operator,
    );
    const pauseId = (JSON.parse(paused.stdout) as { id: string }).id;
    expect((await relayerCli(['pauses'], operator)).stdout).toMatch(
      new RegExp(`│ ${pauseId} │ tenant halted .*│ incident 9`),
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const submitted = await relayerCli(
      [
        'submit',
        '--chain-id',
        String(world.anvil.chainId),
        '--to',
        world.wallets[1]!,
        '--eth',
        '0.01',
        '--valid-until',
        '1h',
        '--json',
      ],
      tenant,
    );
    const intent = JSON.parse(submitted.stdout) as { id: string; validUntil: string };
    expect(Date.parse(intent.validUntil) - Date.now()).toBeGreaterThan(59 * 60_000);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await relayerCli(['status', intent.id, '--json'], tenant)).stdout).toContain(
      '"status": "authorized"',
    );
    expect(await relayerCli(['resume', pauseId, '--note', 'fixed'], operator)).toMatchObject({
      code: 0,
      stdout: `resumed tenant halted (${pauseId})\n`,
    });
    expect(await relayerCli(['status', intent.id, '--wait'], tenant)).toMatchObject({ code: 0 });
    expect((await relayerCli(['pauses'], operator)).stdout).toBe('nothing is paused\n');
  });

  it('schedules a daily payment, backfills a missed day (paid once), pauses, resumes and deletes it', async () => {
    await relayerCli(['tenants', 'create', 'payroll', '--deposit', '1']);
    const created = await relayerCli(['keys', 'create', '--tenant', 'payroll', '--json']);
    const tenant = { RELAYER_API_KEY: (JSON.parse(created.stdout) as { apiKey: string }).apiKey };
    const create = ['schedules', 'create', '--chain-id', String(world.anvil.chainId)];
    const to = ['--to', world.wallets[1]!, '--eth', '0.01'];
    expect(await relayerCli([...create, ...to], tenant)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('give every (a span) or cron'),
    });
    const made = await relayerCli([...create, ...to, '--every', '1d', '--json'], tenant);
    const { id } = JSON.parse(made.stdout) as { id: string };
    // The same command again is the same schedule (its key derives from it); another note, another.
    expect((await relayerCli([...create, ...to, '--every', '1d'], tenant)).stdout).toMatch(
      /already created under key schedule-[0-9a-f]{32} \(the same command before\): nothing new/,
    );
    const noted = await relayerCli(
      [...create, ...to, '--every', '1d', '--note', 'b', '--json'],
      tenant,
    );
    const other = (JSON.parse(noted.stdout) as { id: string }).id;
    expect(other).not.toBe(id);
    await relayerCli(['schedules', 'delete', other], tenant);
    expect((await relayerCli(['schedules', 'list'], tenant)).stdout).toMatch(
      new RegExp(`│ ${id} │ payroll │ active │ every 1d │ UTC .*│ ETH +│ +0\\.01 │`),
    );
    const range = ['--from', '2026-11-01T12:00:00Z', '--to', '2026-11-02T12:00:00Z'];
    expect(await relayerCli(['schedules', 'backfill', id, ...range], tenant)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/from is before it; to pay times before it on purpose/),
    });
    const answers = [];
    for (let twice = 0; twice < 2; twice++) {
      const answered = await relayerCli(
        ['schedules', 'backfill', id, ...range, '--before-start'],
        tenant,
      );
      expect(answered.code).toBe(0);
      answers.push(answered.stdout);
    }
    expect(answers[0]).toMatch(/2026-11-02T00:00:00.000Z │ admitted +│ pi_/);
    expect(answers[0]).toMatch(/^1 admitted$/m);
    expect(answers[1]).toMatch(/2026-11-02T00:00:00.000Z │ already admitted │ pi_/);
    expect(answers[1]).toMatch(/^1 alreadyAdmitted$/m);
    type Shown = { occurrences: { intentId: string | null }[]; nextTimes: string[] };
    const show = async () =>
      JSON.parse((await relayerCli(['schedules', 'show', id, '--json'], tenant)).stdout) as Shown;
    await waitFor(async () => (await show()).occurrences.length > 0, 'the backfilled occurrence');
    const [occurrence] = (await show()).occurrences;
    expect(await relayerCli(['status', occurrence!.intentId!, '--wait'], tenant)).toMatchObject({
      code: 0,
    });
    expect((await show()).occurrences).toHaveLength(1);
    expect((await relayerCli(['schedules', 'show', id], tenant)).stdout).toMatch(
      /2026-11-02T00:00:00.000Z │ admitted │ pi_/,
    );
    expect((await relayerCli(['schedules', 'pause', id], tenant)).stdout).toBe(`${id} is paused\n`);
    expect((await relayerCli(['schedules', 'resume', id], tenant)).stdout).toBe(
      `${id} is active\n`,
    );
    expect((await relayerCli(['schedules', 'delete', id], tenant)).stdout).toBe(`deleted ${id}\n`);
    expect((await relayerCli(['schedules', 'show', id], tenant)).code).toBe(3);
  });

  it('sets a payment policy and a recipient list; a payment it refuses exits 2 naming the rule', async () => {
    const chain = String(world.anvil.chainId);
    await relayerCli(['tenants', 'create', 'capped', '--deposit', '5']);
    const keyOf = async (...args: string[]) =>
      (
        JSON.parse((await relayerCli(['keys', 'create', ...args, '--json'])).stdout) as {
          apiKey: string;
        }
      ).apiKey;
    const operator = { RELAYER_API_KEY: await keyOf('--operator') };
    const tenant = { RELAYER_API_KEY: await keyOf('--tenant', 'capped') };

    const set = await relayerCli(
      [
        'policies',
        'set',
        'capped',
        '--chain-id',
        chain,
        '--max-per-intent',
        '0.5',
        '--per-24h',
        '1',
      ],
      operator,
    );
    expect(set).toMatchObject({ code: 0 });
    expect(set.stdout).toMatch(/^tenant capped, policy version 1\n/);
    expect(set.stdout).toMatch(/│\s*31337\s*│ native\s*│\s*0\.5\s*│\s*1\s*│\s*—\s*│\s*—\s*│/);
    const foe = world.wallets[1]!;
    expect(
      await relayerCli(
        [
          'recipients',
          'add',
          'capped',
          foe,
          '--chain-id',
          chain,
          '--deny',
          '--label',
          'closed account',
        ],
        operator,
      ),
    ).toMatchObject({ code: 0 });
    expect((await relayerCli(['recipients', 'list', 'capped'], tenant)).stdout).toMatch(
      new RegExp(`│\\s*31337\\s*│ deny\\s*│ ${foe}\\s*│ closed account`),
    );
    const pay = ['submit', '--chain-id', chain, '--from', world.wallets[0]!];
    expect(
      await relayerCli(
        [...pay, '--to', '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC', '--eth', '0.6'],
        tenant,
      ),
    ).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        'max_per_intent: at most 0.5 ETH an intent on chain 31337, 0.6 ETH asked',
      ),
    });
    expect(await relayerCli([...pay, '--to', foe, '--eth', '0.1'], tenant)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('recipient_denied'),
    });
    const changes = await relayerCli(['policies', 'changes', 'capped'], tenant);
    expect(changes.stdout).toMatch(/│\s*2 │ .* │ operator key \w+ \(cli\)\s*│ recipient 0x/);

    // Bad flags are named, and change nothing.
    const before = await relayerCli(['policies', 'get', 'capped', '--json'], tenant);
    for (const [args, message] of [
      [['--per-24h', 'lots'], /--per-24h: must be a decimal amount/],
      [['--max-per-intent', '0.1234567890123456789'], /--max-per-intent: at most 18 decimals/],
      [['--recipients', 'maybe'], /--recipients: allow-list or any/],
      [[], /give --max-per-intent, --per-24h, --per-7d, --approval-from or --recipients/],
      [['--per-7d', '0.1'], /invalid policy change: maxPerIntent: .* is above perWeek/],
    ] as [string[], RegExp][]) {
      const refused = await relayerCli(
        ['policies', 'set', 'capped', '--chain-id', chain, ...args],
        operator,
      );
      expect({ args, code: refused.code, stderr: refused.stderr }).toMatchObject({
        args,
        code: 2,
        stderr: expect.stringMatching(message),
      });
    }
    expect(
      await relayerCli(
        ['recipients', 'add', 'capped', foe, '--chain-id', chain, '--label', 'x'],
        operator,
      ),
    ).toMatchObject({ code: 2, stderr: expect.stringContaining('give --allow or --deny') });
    expect((await relayerCli(['policies', 'get', 'capped', '--json'], tenant)).stdout).toBe(
      before.stdout,
    );
  });

  it('allows a contract call, lists it, and submits calls: bad arguments and a missing wallet of its own exit naming them', async () => {
    const chain = String(world.anvil.chainId);
    await relayerCli(['tenants', 'create', 'caller', '--deposit', '5']);
    const keyOf = async (...args: string[]) =>
      (
        JSON.parse((await relayerCli(['keys', 'create', ...args, '--json'])).stdout) as {
          apiKey: string;
        }
      ).apiKey;
    const operator = { RELAYER_API_KEY: await keyOf('--operator') };
    const tenant = { RELAYER_API_KEY: await keyOf('--tenant', 'caller') };
    const contract = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
    const allow = ['calls', 'allow', 'caller', contract, '--chain-id', chain];
    expect(
      await relayerCli(
        [...allow, '--function', 'deposit(bytes32)', '--max-value', '0.5', '--label', 'vault'],
        operator,
      ),
    ).toMatchObject({
      code: 0,
      stdout: expect.stringContaining(`caller may call deposit(bytes32) of ${contract}`),
      // Nothing is deployed there on this chain: allowed, with a warning.
      stderr: expect.stringContaining(`warning: ${contract} has no code on chain ${chain}`),
    });
    expect(
      await relayerCli([...allow, '--function', 'deposit(bytes33)', '--label', 'x'], operator),
    ).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('"deposit(bytes33)" is neither a selector'),
    });
    expect((await relayerCli(['calls', 'list', 'caller'], tenant)).stdout).toMatch(
      new RegExp(
        `│\\s*31337\\s*│ ${contract}\\s*│ deposit\\(bytes32\\) \\(0xb214faa5\\)\\s*│\\s*0\\.5\\s*│ vault`,
      ),
    );
    const call = ['submit', '--chain-id', chain, '--to', contract];
    const deposit = ['--abi', 'function deposit(bytes32 ref) payable'];
    expect(await relayerCli([...call, ...deposit, '--arg', '42'], tenant)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('body.call.args.0: a bytes32 must be a 0x-prefixed hex'),
    });
    const depositing = [...call, ...deposit, '--arg', `0x${'47'.repeat(32)}`, '--eth', '0.1'];
    expect(await relayerCli(depositing, tenant)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(`to: ${contract} has no code on chain ${chain}`),
    });
    // Let by as a contract deployed later (the bound it had kept): then the wallet is what is missing.
    expect(
      await relayerCli(
        [...allow, '--function', 'deposit(bytes32)', '--label', 'vault', '--allow-no-code'],
        operator,
      ),
    ).toMatchObject({ code: 0, stderr: '' });
    expect(await relayerCli(depositing, tenant)).toMatchObject({
      code: 8,
      stderr: expect.stringContaining('no hot wallet of its own'),
    });
    expect(
      await relayerCli([...call, '--call-data', '0xb214faa5', '--amount', '1'], tenant),
    ).toMatchObject({ code: 2, stderr: expect.stringContaining('--eth or --wei') });
  });
});
