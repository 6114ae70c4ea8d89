import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { configTable, ConfigError, loadConfig } from '../../workers/config';

const key = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a configuration error');
}

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({ HOT_WALLET_KEYS: key });
    expect(config).toMatchObject({
      temporalAddress: 'localhost:7233',
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

  it('requires the hot wallet keys and never echoes a key back', () => {
    expect(problemsOf({})).toEqual([expect.stringMatching(/^HOT_WALLET_KEYS: required/)]);
    const [problem] = problemsOf({ HOT_WALLET_KEYS: '0xdeadbeef' });
    expect(problem).toMatch(/^HOT_WALLET_KEYS: must be 0x followed by 64 hex digits/);
    expect(problem).not.toContain('deadbeef');
  });

  it('is what the README documents', () => {
    const readme = readFileSync(resolve(__dirname, '../../README.md'), 'utf8');
    expect(readme).toContain(configTable());
  });
});
