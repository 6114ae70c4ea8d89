import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Command } from 'commander';
import { nodeArgumentsFor } from '../harness/stack/compiled-entries';
import { relayerProgram } from '../../cli/program';
import { databaseSnapshot } from '../harness/api';
import { scratchDir } from '../harness/scratch-dir';
import { useCliRelayer } from '../harness/relayer-cli';

const { world, relayerCli, relayerCliInProcess, apiUrl } = useCliRelayer();

/**
 * The CLI as it runs in a person's terminal: a pseudo-terminal (util-linux `script`, 100 columns)
 * instead of pipes, so it draws what it draws for people. Its output as the terminal got it.
 */
// A person's terminal, not CI's: with CI set (as CI runs us) color libraries draw no color even on
// a terminal, and NO_COLOR / FORCE_COLOR would decide it for them.
function personsTerminal(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['CI', 'NO_COLOR', 'FORCE_COLOR']) delete env[name];
  return env;
}

async function relayerCliInTerminal(args: string[], env: Record<string, string>) {
  const quoted = [process.execPath, ...nodeArgumentsFor('cli/relayer.ts'), ...args]
    .map((part) => `'${part.replace(/'/g, `'\\''`)}'`)
    .join(' ');
  const { stdout } = await promisify(execFile)(
    'script',
    ['-qefc', `stty cols 100; exec ${quoted}`, '/dev/null'],
    {
      cwd: resolve(__dirname, '../..'),
      env: { ...personsTerminal(), RELAYER_API_URL: apiUrl(), ...env },
    },
  );
  return stdout;
}

/**
 * Where each of the API's routes is on the command line (`relayer <command>`): a tenant's or an
 * operator's, each where its caller looks for it. A route added without a command fails the
 * parity test below.
 */
const commandOfRoute: Record<string, string> = {
  'POST /v1/deposit-addresses': 'deposits address',
  'GET /v1/deposit-addresses': 'deposits addresses',
  'GET /v1/deposits': 'deposits list',
  'POST /v1/deposits/reconcile': 'deposits reconcile',
  'POST /v1/intents': 'submit',
  'GET /v1/intents': 'list',
  'GET /v1/intents/{id}': 'status',
  'GET /v1/intents/{id}/attempts': 'attempts',
  'GET /v1/intents/{id}/audit': 'audit',
  'POST /v1/intents/{id}/cancel': 'cancel',
  'POST /v1/intents/{id}/speed-up': 'speed-up',
  'POST /v1/intents/{id}/redact': 'redact',
  'GET /v1/balances': 'balance',
  'POST /v1/intents/{id}/review/confirm': 'review confirm',
  'POST /v1/intents/{id}/review/fail': 'review fail',
  'POST /v1/intents/{id}/review/retry': 'review retry',
  'POST /v1/intents/{id}/review/cancel': 'review cancel',
  'POST /v1/batches': 'batch submit',
  'GET /v1/batches/{id}': 'batch status',
  'GET /v1/batches/{id}/results': 'batch results',
  'POST /v1/batches/{id}/cancel': 'batch cancel',
  'GET /v1/wallets': 'wallets list',
  'POST /v1/wallets': 'wallets add',
  'POST /v1/wallets/{chainId}/{address}/retire': 'wallets retire',
  'POST /v1/wallets/{chainId}/{address}/activate': 'wallets activate',
  'PUT /v1/tenants/{tenantId}/wallets': 'wallets pool',
  'GET /v1/assets': 'assets list',
  'POST /v1/assets': 'assets register',
  'POST /v1/webhooks/endpoints': 'webhooks add',
  'GET /v1/webhooks/endpoints': 'webhooks list',
  'POST /v1/webhooks/endpoints/{id}/rotate-secret': 'webhooks rotate-secret',
  'POST /v1/webhooks/endpoints/{id}/enable': 'webhooks enable',
  'POST /v1/webhooks/endpoints/{id}/disable': 'webhooks disable',
  'GET /v1/webhooks/endpoints/{id}/deliveries': 'webhooks deliveries',
  'POST /v1/webhooks/endpoints/{id}/deliveries/{eventId}/redeliver': 'webhooks redeliver',
  'POST /v1/intents/{id}/approve': 'approve',
  'POST /v1/intents/{id}/reject': 'reject',
  'POST /v1/batches/{id}/approve': 'batch approve',
  'POST /v1/batches/{id}/reject': 'batch reject',
  'POST /v1/pauses': 'pause',
  'GET /v1/pauses': 'pauses',
  'POST /v1/pauses/{id}/resume': 'resume',
  'POST /v1/schedules': 'schedules create',
  'GET /v1/schedules': 'schedules list',
  'GET /v1/schedules/{id}': 'schedules show',
  'POST /v1/schedules/{id}/pause': 'schedules pause',
  'POST /v1/schedules/{id}/resume': 'schedules resume',
  'POST /v1/schedules/{id}/backfill': 'schedules backfill',
  'DELETE /v1/schedules/{id}': 'schedules delete',
  'GET /v1/tenants/{tenantId}/policy': 'policies get',
  'GET /v1/tenants/{tenantId}/policy/changes': 'policies changes',
  'PUT /v1/tenants/{tenantId}/policy/limits': 'policies set',
  'PUT /v1/tenants/{tenantId}/policy/recipients': 'policies set',
  'GET /v1/tenants/{tenantId}/recipients': 'recipients list',
  'POST /v1/tenants/{tenantId}/recipients': 'recipients add',
  'DELETE /v1/tenants/{tenantId}/recipients/{chainId}/{address}': 'recipients remove',
  'GET /v1/tenants/{tenantId}/contract-calls': 'calls list',
  'POST /v1/tenants/{tenantId}/contract-calls': 'calls allow',
  'DELETE /v1/tenants/{tenantId}/contract-calls/{chainId}/{contract}/{function}': 'calls remove',
};

// Its pauses, schedules, policies and contract calls: cli-operations.test.ts.
describe('the relayer CLI', () => {
  it('creates a tenant and its key, submits and waits, lists, and answers in JSON with exit codes', async () => {
    const created = await relayerCli(['tenants', 'create', 'cli-co', '--deposit', '1', '--json']);
    expect(created).toMatchObject({ code: 0 });
    // The relayer serves one chain: the deposit is booked there, and says so.
    expect(JSON.parse(created.stdout)).toMatchObject({
      id: 'cli-co',
      chainId: world.anvil.chainId,
      asset: 'native',
      available: '1000000000000000000',
    });
    const weighed = await relayerCli(['tenants', 'update', 'cli-co', '--fairness-weight', '3']);
    expect(weighed).toMatchObject({ code: 0, stdout: 'tenant cli-co: fairness weight 3\n' });
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
    expect(
      await relayerCli(['speed-up', intent.id, '--max-fee-gwei', '30', '--json'], env),
    ).toMatchObject({
      code: 5,
      stderr: expect.stringMatching(/"code":"cannot_speed_up".*is confirmed/),
    });
    expect(await relayerCli(['speed-up', intent.id, '--max-fee-gwei', '0'], env)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--max-fee-gwei: must be positive'),
    });
    expect(await relayerCli(['status', 'pi_nope'], env)).toMatchObject({
      code: 3,
      stderr: expect.stringContaining('not_found'),
    });
    expect(await relayerCli(['list'], { RELAYER_API_KEY: 'rly_wrong' })).toMatchObject({ code: 4 });

    // Beside attempts, where a tenant looks for it (none on a plain payment).
    expect(await relayerCli(['audit', intent.id], env)).toMatchObject({
      code: 0,
      stdout: 'no entries (no cancel, review or replacement)\n',
    });
    // Another tenant's list is refused, not narrowed silently to the key's own.
    expect(await relayerCli(['list', '--tenant', 'acme'], env)).toMatchObject({
      code: 4,
      stderr: expect.stringMatching(
        /tenantId is an operator's filter: this key lists tenant cli-co/,
      ),
    });
    // The tenant's own balance, in ETH: 1 deposited, 0.01 paid (the gas is the relayer's).
    const balance = await relayerCli(['balance'], env);
    expect(balance).toMatchObject({ code: 0, stdout: expect.stringMatching(/^tenant cli-co\n/) });
    expect(balance.stdout).toMatch(/│ native\s*│\s*31337\s*│\s*0\.99\d*\s*│\s*0\s*│/);
    // Asked for more than the balance: in ETH, as it was asked.
    expect(await relayerCli(['submit', ...payment, '--eth', '100000'], env)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(
        /tenant cli-co has 0\.99\d* ETH available, 100000 ETH requested/,
      ),
    });
  });

  it('pages a list: --limit with the next cursor, --cursor for the rest, --all for everything', async () => {
    await relayerCli(['tenants', 'create', 'pager', '--deposit', '1']);
    const { apiKey } = JSON.parse(
      (await relayerCli(['keys', 'create', '--tenant', 'pager', '--json'])).stdout,
    ) as { apiKey: string };
    const env = { RELAYER_API_KEY: apiKey };
    for (const n of [1, 2, 3]) {
      const args = ['submit', '--chain-id', String(world.anvil.chainId), '--to', world.wallets[1]!];
      expect(await relayerCli([...args, '--eth', `0.00${n}`], env)).toMatchObject({ code: 0 });
    }
    type Page = { intents: { id: string }[]; nextCursor: string | null };
    const first = JSON.parse(
      (await relayerCli(['list', '--limit', '2', '--json'], env)).stdout,
    ) as Page;
    expect(first.intents).toHaveLength(2);
    expect(first.nextCursor).toEqual(expect.any(String));
    const rest = JSON.parse(
      (await relayerCli(['list', '--cursor', first.nextCursor!, '--json'], env)).stdout,
    ) as Page;
    expect(rest).toMatchObject({ nextCursor: null });
    expect(rest.intents).toHaveLength(1);
    const all = JSON.parse(
      (await relayerCli(['list', '--all', '--limit', '1', '--json'], env)).stdout,
    ) as Page;
    expect(all.intents.map((intent) => intent.id)).toEqual(
      [...first.intents, ...rest.intents].map((intent) => intent.id),
    );
    expect((await relayerCli(['list', '--limit', '2'], env)).stdout).toMatch(
      /2 intents; more with --cursor \S+/,
    );
  });

  it('makes a read-only key that expires, rotates it with a grace, and lists what each may do', async () => {
    await relayerCli(['tenants', 'create', 'scoped', '--deposit', '1']);
    const reader = JSON.parse(
      (
        await relayerCli([
          'keys',
          'create',
          '--tenant',
          'scoped',
          '--scope',
          'intents:read',
          '--expires',
          '30d',
          '--label',
          'dashboard',
          '--json',
        ])
      ).stdout,
    ) as { id: string; apiKey: string; scopes: string[]; expiresAt: string };
    expect(reader.scopes).toEqual(['intents:read']);
    expect(Date.parse(reader.expiresAt) - Date.now()).toBeGreaterThan(29 * 86_400_000);
    const env = { RELAYER_API_KEY: reader.apiKey };
    expect(await relayerCli(['list'], env)).toMatchObject({ code: 0 });
    const submit = ['submit', '--chain-id', String(world.anvil.chainId), '--eth', '0.001'];
    expect(await relayerCli([...submit, '--to', world.wallets[1]!], env)).toMatchObject({
      code: 4,
      stderr: expect.stringContaining(
        'this needs the scope intents:write; the key has: intents:read',
      ),
    });

    const rotated = JSON.parse(
      (await relayerCli(['keys', 'rotate', reader.id, '--grace', '90m', '--json'])).stdout,
    ) as { id: string; apiKey: string; oldKeyUntil: string };
    expect(Date.parse(rotated.oldKeyUntil) - Date.now()).toBeLessThanOrEqual(90 * 60_000);
    expect(await relayerCli(['list'], env)).toMatchObject({ code: 0 });
    expect(await relayerCli(['list'], { RELAYER_API_KEY: rotated.apiKey })).toMatchObject({
      code: 0,
    });
    expect(await relayerCli(['keys', 'rotate', reader.id])).toMatchObject({
      code: 3,
      stderr: expect.stringContaining('has not been rotated already'),
    });
    const table = (await relayerCli(['keys', 'list'])).stdout;
    expect(table).toMatch(
      new RegExp(
        `│ ${reader.id} │ scoped\\s+│ dashboard\\s+│ intents:read .*│ replaced by ${rotated.id}`,
      ),
    );
    expect(table).toMatch(
      new RegExp(`│ ${rotated.id} │ scoped\\s+│ dashboard\\s+│ intents:read .*│ live`),
    );
  });

  it('has a command for every route of the API, and each command it names exists', async () => {
    const openapi = (await (await fetch(`${apiUrl()}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const routes = Object.entries(openapi.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const apiRoutes = routes.filter((route) => route.includes(' /v1/'));
    expect(apiRoutes.filter((route) => !(route in commandOfRoute))).toEqual([]);
    expect(Object.keys(commandOfRoute).filter((route) => !apiRoutes.includes(route))).toEqual([]);
    const program = relayerProgram();
    const exists = (path: string) =>
      path
        .split(' ')
        .reduce<Command | undefined>(
          (command, name) => command?.commands.find((sub) => sub.name() === name),
          program,
        ) !== undefined;
    expect(Object.values(commandOfRoute).filter((path) => !exists(path))).toEqual([]);
  });

  it('refuses to create a database: a DATABASE_URL with no relayer behind it is named, nothing made', async () => {
    const dir = scratchDir('cli-nodb');
    const missing = join(dir, 'relayer.sqlite');
    const refused = await relayerCli(['keys', 'list'], { DATABASE_URL: `sqlite:${missing}` });
    expect(refused).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        `no relayer database at ${missing}: set DATABASE_URL to the relayer's ` +
          "(the demo's: sqlite:.relayer/demo/relayer.sqlite)",
      ),
    });
    expect(existsSync(missing)).toBe(false);
  });

  it('refuses bad flags with exit code 2, naming the flag, and writes nothing', async () => {
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
      [['submit', ...payment, '--eth', 'lots'], /--eth: must be a decimal amount like 25 or 0.5/],
      [['submit', ...payment, '--eth', '-5'], /--eth: must be positive \(got "-5"\)/],
      [['tenants', 'create', 'neg', '--deposit', '-1'], /--deposit: must be positive/],
      // An unknown flag is named (with what it may have meant), though a required one is missing
      // too; then one usage line, not the whole help.
      [
        ['submit', '--chainid', '1', '--to', world.wallets[1]!, '--eth', '1'],
        /unknown option '--chainid'\n\(Did you mean --chain-id\?\)\nusage: relayer submit \[options\]\nsee: relayer submit --help\n$/,
      ],
      [['submit', ...payment, '--eth', '1', '--wei', '5'], /--eth <ether> or --wei <base units>/],
      [['submit', ...payment, '--asset', 'USDC', '--eth', '1'], /--eth is for the native coin/],
      [
        ['tenants', 'deposit', 'acme', '--asset', 'USDC', '--amount', '5'],
        /unknown_asset: asset "USDC" is not registered on chain 31337/,
      ],
      // Books are per chain: a chain the relayer has no wallet on books nothing.
      [
        ['tenants', 'deposit', 'acme', '--chain-id', '5', '--amount', '5'],
        /chain 5 is not served by this relayer: it has hot wallets on chain 31337/,
      ],
      [['submit', ...payment.slice(2), '--eth', '1'], /--chain-id/],
      [
        ['submit', '--chain-id', 'x', '--from', 'a', '--to', 'b', '--eth', '1'],
        /--chain-id: must be a whole number/,
      ],
      [['tenants', 'create', 'Bad Tenant!'], /tenant: tenantId must be/],
      [
        ['tenants', 'update', 'acme', '--fairness-weight', '0'],
        /--fairness-weight: must be a decimal from 0.001 to 1000, or "default" \(got "0"\)/,
      ],
      [['tenants', 'update', 'nobody', '--fairness-weight', '2'], /no tenant nobody: create it/],
      [
        ['keys', 'create', '--tenant', 'a', '--operator'],
        /exactly one of --tenant <id> or --operator/,
      ],
      [['frobnicate'], /unknown command/],
      [['keys', 'create', '--tenant', 'nobody'], /no tenant "nobody" .*: create it first with/],
      [
        ['keys', 'create', '--tenant', 'acme', '--scope', 'review'],
        /--scope: scope "review" is not for a tenant key/,
      ],
      [
        ['keys', 'create', '--operator', '--scope', 'everything'],
        /--scope: unknown scope "everything"/,
      ],
      [
        ['keys', 'create', '--tenant', 'acme', '--expires', '2w'],
        /--expires: a whole number of minutes/,
      ],
      [['keys', 'rotate', '0123456789abcdef', '--grace', 'soon'], /--grace: a whole number/],
    ];
    // In the test's process: what a refusal prints and its exit code are the CLI's own either way.
    for (const [args, message] of cases) {
      const result = await relayerCliInProcess(args, { RELAYER_API_KEY: 'rly_x' });
      expect({ args, code: result.code, stderr: result.stderr }).toMatchObject({
        args,
        code: 2,
        stderr: expect.stringMatching(message),
      });
    }
    expect(await databaseSnapshot(world)).toEqual(before);
  });

  it('submits a batch from CSV only when every row is valid, follows it, and writes results in input order', async () => {
    const { apiKey } = JSON.parse(
      (await relayerCli(['keys', 'create', '--tenant', 'acme', '--json'])).stdout,
    ) as { apiKey: string };
    const env = { RELAYER_API_KEY: apiKey };
    const dir = scratchDir('cli-batch');
    const recipients = world.wallets.concat(world.wallets);
    const good = recipients.map((to, i) => `${to},${world.wallets[0]},0.00${i + 1}`);
    const csv = (lines: string[]) => ['to,from,amount_eth', ...lines].join('\n');
    writeFileSync(
      join(dir, 'bad.csv'),
      csv([good[0]!, 'nobody,0x1,1', good[1]!, `${recipients[0]},${world.wallets[0]},-2`]),
    );

    const before = await databaseSnapshot(world);
    const refused = await relayerCli(
      ['batch', 'submit', join(dir, 'bad.csv'), '--chain-id', String(world.anvil.chainId)],
      env,
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/line 3/);
    expect(refused.stderr).toMatch(/line 5/);
    expect(refused.stderr).toMatch(/2 of 4 rows are invalid: nothing was submitted/);
    expect(await databaseSnapshot(world)).toEqual(before);

    writeFileSync(join(dir, 'good.csv'), csv(good));
    const out = join(dir, 'results.csv');
    const args = [
      'batch',
      'submit',
      join(dir, 'good.csv'),
      '--chain-id',
      String(world.anvil.chainId),
      '--concurrency',
      '3',
      '--wait',
      '--out',
      out,
    ];
    const done = await relayerCli(args, env);
    expect(done).toMatchObject({ code: 0 });
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    // The file had no reference or metadata columns: the results' reference column is empty.
    expect(lines[0]).toBe('index,status,intent_id,tx_hash,error_code,reason_code,reason,reference');
    expect(lines.slice(1).map((line) => line.split(',').slice(0, 2).join(','))).toEqual(
      good.map((_, i) => `${i},confirmed`),
    );
    // The same file again is the same batch: nothing is paid twice.
    const rerun = await relayerCli(args.slice(0, -3), env);
    expect(rerun.stderr).toMatch(/already submitted batch/);

    const skipped = await relayerCli(
      [
        'batch',
        'submit',
        join(dir, 'bad.csv'),
        '--chain-id',
        String(world.anvil.chainId),
        '--skip-invalid',
        '--json',
      ],
      env,
    );
    expect(skipped.code).toBe(0);
    expect(JSON.parse(skipped.stdout)).toMatchObject({ itemCount: 2 });
  });

  it('follows a batch on a terminal with a progress bar, then its table', async () => {
    const { apiKey } = JSON.parse(
      (await relayerCli(['keys', 'create', '--tenant', 'acme', '--json'])).stdout,
    ) as { apiKey: string };
    const dir = scratchDir('cli-tty');
    const rows = world.wallets.map((to, i) => `${to},${world.wallets[0]},0.00${i + 1}`);
    writeFileSync(join(dir, 'pay.csv'), ['to,from,amount_eth', ...rows].join('\n'));
    const screen = await relayerCliInTerminal(
      [
        'batch',
        'submit',
        join(dir, 'pay.csv'),
        '--chain-id',
        String(world.anvil.chainId),
        '--wait',
      ],
      { RELAYER_API_KEY: apiKey },
    );
    // The bar is redrawn in place (back to column 1, the cursor hidden meanwhile), from empty to
    // full.
    const frames = screen.split('\u001b[1G').filter((frame) => frame.includes('ended · confirmed'));
    expect(frames[0]).toMatch(/batch \|-{40}\| 0\/2 ended · confirmed 0 · other 0/);
    expect(frames.at(-1)).toMatch(/batch \|={40}\| 2\/2 ended · confirmed 2 · other 0/);
    expect(screen.indexOf('\u001b[?25l')).toBeLessThan(screen.indexOf('\u001b[?25h'));
    // Then the batch's table, in color on a terminal (its head cyan): its status and counts.
    expect(screen).toContain('\u001b[36m batch');
    // eslint-disable-next-line no-control-regex
    const plain = screen.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
    expect(plain).toMatch(/status\s+│\s+completed/);
    expect(plain).toMatch(/confirmed\s+│\s+2/);
  });
});
