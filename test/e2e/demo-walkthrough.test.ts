import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { listProcesses } from '../harness/stack/children';
import { nodeArgumentsFor } from '../harness/stack/compiled-entries';
import { freePort } from '../harness/stack/free-port';
import { waitFor } from '../harness/stack/wait-for';

jest.setTimeout(180_000);

const root = resolve(__dirname, '../..');

/**
 * README's way in, as a new user takes it: `npm start -- --keep-running` (on ports of its own),
 * then the commands it prints, with the keys and DATABASE_URL it prints, exactly as printed.
 */
describe('the demo, kept running, and the commands it suggests', () => {
  let demo: ChildProcess | undefined;
  let output = '';
  const dir = mkdtempSync(join(tmpdir(), 'demo-walkthrough-'));

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    if (!demo?.pid) return;
    const group = demo.pid;
    if (demo.exitCode === null) demo.kill('SIGKILL');
    for (const left of listProcesses().filter((p) => p.groupId === group)) {
      process.kill(left.pid, 'SIGKILL');
    }
  });

  it('prints commands that work for its tenant and its operator, then stops cleanly on Ctrl-C', async () => {
    const [temporalPort, uiPort, anvilPort, apiPort] = await Promise.all(
      [0, 0, 0, 0].map(() => freePort()),
    );
    demo = spawn(
      process.execPath,
      [
        ...nodeArgumentsFor('dev/demo.ts'),
        '--keep-running',
        '--intents',
        '4',
        ...['--temporal-port', String(temporalPort), '--ui-port', String(uiPort)],
        ...['--anvil-port', String(anvilPort), '--api-port', String(apiPort), '--dir', dir],
      ],
      { cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    demo.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    demo.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitFor(() => output.includes('Ctrl-C stops everything'), 'the demo to be up', 120_000);

    const env: Record<string, string> = {};
    for (const [, name, value] of output.matchAll(
      /\b(RELAYER_API_URL|RELAYER_API_KEY|DATABASE_URL)=(\S+)/g,
    )) {
      // The first of each: the contract call's line later names the operator's key.
      env[name!] ??= value!;
    }
    expect(Object.keys(env).sort()).toEqual(['DATABASE_URL', 'RELAYER_API_KEY', 'RELAYER_API_URL']);
    expect(env.DATABASE_URL).toBe(`sqlite:${join(dir, 'relayer.sqlite')}`);
    const operatorKey = output.match(/an operator's key .*: (rly_\S+)/)?.[1];
    expect(operatorKey).toBeDefined();
    // The Temporal CLI's banner (its ports, a metrics address of its own) is in its log, not here.
    expect(output).not.toMatch(/^(CLI \S+ \(Server|Metrics:)/m);
    expect(readFileSync(join(dir, 'temporal.log'), 'utf8')).toMatch(/^CLI \S+ \(Server/m);

    const relayer = async (args: string[], extra: Record<string, string> = {}) =>
      promisify(execFile)(process.execPath, [...nodeArgumentsFor('cli/relayer.ts'), ...args], {
        cwd: root,
        env: { ...process.env, ...env, ...extra },
      });
    const suggested = [...output.matchAll(/^ {2}npm run -s relayer -- (.+)$/gm)].map((line) =>
      line[1]!.trim().split(/\s+/),
    );
    expect(suggested.map((args) => args[0])).toEqual([
      'list',
      'submit',
      'keys',
      'submit',
      'deposits',
      'balance',
    ]);
    // In the order printed: the tenant's own intents (half of the demo's four), a payment
    // confirmed, the keys.
    const list = await relayer(suggested[0]!);
    expect(list.stdout).toMatch(/^2 intents$/m);
    expect(list.stdout).toMatch(/│ acme /);
    expect(list.stdout).not.toMatch(/globex/);
    expect((await relayer(suggested[1]!)).stdout).toMatch(/│ status\s+│ confirmed/);
    expect((await relayer(suggested[2]!)).stdout).toMatch(
      /│ \(operator\)\s+│ demo operator\s+│ all but approve, redact /,
    );
    // The operator's key reaches the operator's commands; the recipient suggested is none of
    // the relayer's hot wallets.
    const asOperator = { RELAYER_API_KEY: operatorKey! };
    expect((await relayer(['review', 'list'], asOperator)).stdout).toMatch(/^0 in review$/m);
    const wallets = (await relayer(['wallets', 'list'], asOperator)).stdout;
    expect(wallets).toMatch(/0x[0-9a-fA-F]{6}/);
    const to = suggested[1]![suggested[1]!.indexOf('--to') + 1]!;
    expect(wallets.toLowerCase()).not.toContain(to.slice(2, 8).toLowerCase());

    // The contract call as printed (shell quoting and all): the operator allows the vault's
    // deposit, acme calls it from its own wallet and it is confirmed.
    const callLines = output
      .split('\n')
      .filter((line) => / calls allow | --abi /.test(line))
      .map((line) => line.trim());
    expect(callLines).toHaveLength(2);
    // docs/api.md's token and contract-call examples name the contracts the demo deploys.
    const docs = readFileSync(join(root, 'docs/api.md'), 'utf8');
    const deployed = [...output.matchAll(/(?:USDC|test vault) at (0x[0-9a-fA-F]{40})/g)];
    expect(deployed).toHaveLength(2);
    for (const [, address] of deployed) expect(docs).toContain(`"${address}"`);
    const shell = (line: string) =>
      promisify(execFile)('bash', ['-c', line], { cwd: root, env: { ...process.env, ...env } });
    expect((await shell(callLines[0]!)).stdout).toMatch(/deposit\(bytes32\)/);
    const called = (await shell(callLines[1]!)).stdout;
    expect(called).toMatch(/│ status\s+│ confirmed/);
    expect(called).toMatch(/│ call\s+│ selector 0xb214faa5, 36 bytes/);

    // The token deposit as printed: the customer's USDT reaches acme's address on the second
    // chain and is credited once final.
    const depositLine = output
      .split('\n')
      .find((line) => line.includes('eth_sendTransaction'))!
      .trim();
    expect(JSON.parse((await shell(depositLine)).stdout)).toMatchObject({
      result: expect.any(String),
    });
    await waitFor(
      async () => /100 USDT │ credited/.test((await relayer(suggested[4]!)).stdout),
      'the token deposit credited',
      30_000,
    );
    expect((await relayer(suggested[5]!)).stdout).toMatch(/│ USDT\s+│ 31338 │\s+100 │/);

    const exited = new Promise<number | null>((done) => demo!.once('exit', (code) => done(code)));
    // Ctrl-C as a terminal sends it, to the whole group, and pressed twice by someone impatient.
    process.kill(-demo.pid!, 'SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 200));
    process.kill(-demo.pid!, 'SIGINT');
    expect(await exited).toBe(130);
    await waitFor(
      () => listProcesses().every((p) => p.groupId !== demo!.pid || p.state === 'Z'),
      'every process the demo started to end',
      15_000,
    );
  });
});
