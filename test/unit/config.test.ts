import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { configTable } from '../../workers/config/docs-table';
import { loadConfig } from '../../workers/config/load';
import { problemsOf } from '../harness/config-problems';

const key = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({ HOT_WALLET_KEYS: key });
    expect(config).toMatchObject({
      temporal: {
        connection: { address: 'localhost:7233', tls: undefined },
        namespace: 'default',
        described: 'localhost:7233, namespace default, no TLS',
      },
      poolWidth: 8,
      maxInFlight: 3,
      drainTimeoutMs: 20_000,
      rpcUrls: ['http://127.0.0.1:8545'],
      hotWalletKeys: [key],
    });
  });

  it('names each bad variable, all at once', () => {
    const problems = problemsOf({
      HOT_WALLET_KEYS: key,
      POOL_WIDTH: 'eight',
      RPC_URLS: 'not a url',
      THROTTLE_MAX_WAIT_MS: '120000',
      TEMPORAL_ADDRESS: 'localhost',
    });
    expect(problems).toEqual([
      expect.stringMatching(/^TEMPORAL_ADDRESS: must be host:port/),
      expect.stringMatching(/^RPC_URLS: must be a URL/),
      expect.stringMatching(/^POOL_WIDTH: must be a whole number \(got "eight"\)/),
      expect.stringMatching(/^THROTTLE_MAX_WAIT_MS: must be at most 90000/),
    ]);
  });

  it('refuses a workflow cache of 0: local activities need their workflow kept through its task', () => {
    expect(problemsOf({ HOT_WALLET_KEYS: key, MAX_CACHED_WORKFLOWS: '0' })).toEqual([
      expect.stringMatching(/^MAX_CACHED_WORKFLOWS: must be at least 1/),
    ]);
  });

  it('requires the hot wallet keys and never echoes a key back', () => {
    expect(problemsOf({})).toEqual([expect.stringMatching(/^HOT_WALLET_KEYS: required/)]);
    const [problem] = problemsOf({ HOT_WALLET_KEYS: '0xdeadbeef' });
    expect(problem).toMatch(/^HOT_WALLET_KEYS: must be 0x followed by 64 hex digits/);
    expect(problem).not.toContain('deadbeef');
  });

  it('reads fee caps exactly in wei and refuses ones that are not amounts', () => {
    const config = loadConfig({
      HOT_WALLET_KEYS: key,
      MAX_FEE_PER_GAS_GWEI: '1.5',
      MAX_FEE_PER_TRANSFER_ETH: '0.000000000000000001',
    });
    expect(config.maxFeePerGas).toBe(1_500_000_000n);
    expect(config.maxFeePerTransfer).toBe(1n);
    expect(
      problemsOf({
        HOT_WALLET_KEYS: key,
        MAX_PRIORITY_FEE_GWEI: 'lots',
        MAX_FEE_PER_GAS_GWEI: '0',
      }),
    ).toEqual([
      expect.stringMatching(/^MAX_FEE_PER_GAS_GWEI: must be more than 0 gwei/),
      expect.stringMatching(/^MAX_PRIORITY_FEE_GWEI: must be a decimal number of gwei/),
    ]);
    expect(problemsOf({ HOT_WALLET_KEYS: key, REPLACEMENT_BUMP_PERCENT: '5' })).toEqual([
      expect.stringMatching(/^REPLACEMENT_BUMP_PERCENT: must be at least 10/),
    ]);
  });

  it('serves more chains with EXTRA_CHAINS, each with its endpoints in order', () => {
    const config = loadConfig({
      HOT_WALLET_KEYS: key,
      EXTRA_CHAINS: '8453=https://a.example/key,https://b.example; 10=https://c.example',
    });
    expect(config.extraChains).toEqual([
      { chainId: 8453, rpcUrls: ['https://a.example/key', 'https://b.example'] },
      { chainId: 10, rpcUrls: ['https://c.example'] },
    ]);
    expect(loadConfig({ HOT_WALLET_KEYS: key }).extraChains).toEqual([]);
    for (const [value, problem] of [
      ['8453', /each chain must be written <chainId>=<url>/],
      ['8453=nope', /must be a URL/],
      ['1=https://a.example;1=https://b.example', /names a chain id twice/],
      ['31337=https://a.example', /chain 31337 is already CHAIN_ID/],
    ] as const) {
      expect(problemsOf({ HOT_WALLET_KEYS: key, EXTRA_CHAINS: value })).toEqual([
        expect.stringMatching(new RegExp(`^EXTRA_CHAINS: .*${problem.source}`)),
      ]);
    }
  });

  it('reads PANIC_AT as CRASH_AT, and refuses what CRASH_AT refuses', () => {
    const config = loadConfig({ HOT_WALLET_KEYS: key, PANIC_AT: 'after-hold@2' });
    expect(config.panicAt).toEqual(new Map([['after-hold', 2]]));
    const [problem] = problemsOf({ HOT_WALLET_KEYS: key, PANIC_AT: 'after-lunch' });
    expect(problem).toMatch(/^PANIC_AT: after-lunch is not one of after-permit, /);
  });

  it('versions the workers by default, and refuses a build id, deployment name or rollout it cannot use', () => {
    expect(loadConfig({ HOT_WALLET_KEYS: key })).toMatchObject({
      workerVersioning: true,
      workerRollout: 'when-first',
    });
    expect(
      problemsOf({
        HOT_WALLET_KEYS: key,
        WORKER_BUILD_ID: 'v1/2',
        WORKER_DEPLOYMENT_NAME: 'payments.eu',
        WORKER_ROLLOUT: 'now',
      }),
    ).toEqual([
      'WORKER_DEPLOYMENT_NAME: must be letters, digits, "_" or "-" (got "payments.eu")',
      'WORKER_BUILD_ID: must be 1 to 64 letters, digits, ".", "_" or "-" (got "v1/2")',
      'WORKER_ROLLOUT: must be one of when-first, at-start, manual (got "now")',
    ]);
  });

  it('reads WEBHOOK_RETRY_HOURS as hours, decimals included, and refuses what is not', () => {
    expect(loadConfig({ HOT_WALLET_KEYS: key }).webhookRetryHours).toBe(72);
    expect(loadConfig({ HOT_WALLET_KEYS: key, WEBHOOK_RETRY_HOURS: '0.5' }).webhookRetryHours).toBe(
      0.5,
    );
    expect(problemsOf({ HOT_WALLET_KEYS: key, WEBHOOK_RETRY_HOURS: '3 days' })).toEqual([
      'WEBHOOK_RETRY_HOURS: must be a number of hours, such as 72 or 0.5 (got "3 days")',
    ]);
    expect(problemsOf({ HOT_WALLET_KEYS: key, WEBHOOK_RETRY_HOURS: '0' })).toEqual([
      'WEBHOOK_RETRY_HOURS: must be at least 0.001 (3.6 s) (got "0")',
    ]);
  });

  it('reads a switch as people type one (true/false, 1/0, yes/no, on/off) and names the values it takes', () => {
    const loopback = (value: string) =>
      loadConfig({ HOT_WALLET_KEYS: key, WEBHOOK_ALLOW_LOOPBACK: value }).webhookAllowLoopback;
    expect(['true', '1', 'yes', 'On', ' YES '].map(loopback)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['false', '0', 'no', 'OFF'].map(loopback)).toEqual([false, false, false, false]);
    expect(problemsOf({ HOT_WALLET_KEYS: key, WEBHOOK_ALLOW_LOOPBACK: 'maybe' })).toEqual([
      'WEBHOOK_ALLOW_LOOPBACK: must be one of true, 1, yes, on, false, 0, no, off (got "maybe")',
    ]);
  });

  it('reads SEND_WINDOW_MS and CONFIRM_TIMEOUT_MS (five and thirty minutes unset), refusing a window under a second', () => {
    expect(loadConfig({ HOT_WALLET_KEYS: key })).toMatchObject({
      sendWindowMs: 300_000,
      confirmTimeoutMs: 1_800_000,
    });
    expect(
      loadConfig({ HOT_WALLET_KEYS: key, SEND_WINDOW_MS: '60000', CONFIRM_TIMEOUT_MS: '120000' }),
    ).toMatchObject({ sendWindowMs: 60_000, confirmTimeoutMs: 120_000 });
    expect(problemsOf({ HOT_WALLET_KEYS: key, SEND_WINDOW_MS: '500' })).toEqual([
      'SEND_WINDOW_MS: must be at least 1000 (got "500")',
    ]);
    expect(problemsOf({ HOT_WALLET_KEYS: key, CONFIRM_TIMEOUT_MS: '5m' })).toEqual([
      'CONFIRM_TIMEOUT_MS: must be a whole number (got "5m")',
    ]);
  });

  it('reads CRASH_AT as crash points with counts, and refuses unknown points or counts', () => {
    const config = loadConfig({ HOT_WALLET_KEYS: key, CRASH_AT: 'after-sign@3, after-hold' });
    expect(config.crashAt).toEqual(
      new Map([
        ['after-sign', 3],
        ['after-hold', 1],
      ]),
    );
    expect(loadConfig({ HOT_WALLET_KEYS: key }).crashAt).toBeUndefined();
    const [problem] = problemsOf({ HOT_WALLET_KEYS: key, CRASH_AT: 'after-lunch,after-sign@0' });
    expect(problem).toMatch(
      /^CRASH_AT: after-lunch is not one of after-permit, .*after-sign@0: @ must be followed by a count from 1/,
    );
    expect(problemsOf({ HOT_WALLET_KEYS: key, QUOTA_MODE: 'redis' })).toEqual([
      'QUOTA_MODE: must be bottleneck or task-queue (got "redis")',
    ]);
  });

  it('is what docs/operations.md documents', () => {
    const doc = readFileSync(resolve(__dirname, '../../docs/operations.md'), 'utf8');
    expect(doc).toContain(configTable());
  });
});

describe('TRUST_PROXY', () => {
  it('takes hops, or addresses and CIDRs, and refuses anything else by name', () => {
    const load = (value: string) => loadConfig({ HOT_WALLET_KEYS: key, TRUST_PROXY: value });
    expect(loadConfig({ HOT_WALLET_KEYS: key }).trustProxy).toBeUndefined();
    expect(load('2').trustProxy).toBe(2);
    expect(load('10.0.0.0/8, 127.0.0.1,::1').trustProxy).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      '::1',
    ]);
    expect(() => load('20')).toThrow(/TRUST_PROXY: a number of hops must be 1 to 10/);
    for (const wrong of ['10.0.0.0/33', 'balancer.local', 'true']) {
      expect(() => load(wrong)).toThrow(/TRUST_PROXY: must be addresses or CIDRs/);
    }
  });
});
