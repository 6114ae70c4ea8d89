import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../workers/config/load';
import { scratchDir } from '../harness/scratch-dir';

/** Every secret setting also as `<NAME>_FILE`, the containers' convention: one rule for all. */
const dir = scratchDir('secret-files');
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const key = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

describe('secrets from files', () => {
  it('reads each secret from its file, the trailing newline dropped', () => {
    const config = loadConfig({
      HOT_WALLET_KEYS: key,
      DATABASE_URL_FILE: file('db', 'postgres://relayer:s3cret@db:5432/relayer\n'),
      REDIS_URL_FILE: file('redis', 'rediss://:pw@cache:6380\n'),
      WEBHOOK_SECRETS_KEY_FILE: file('webhooks', `${Buffer.alloc(32, 7).toString('base64')}\n`),
      RPC_URLS_FILE: file('rpc', 'https://eth.example/v3/k1,https://backup.example/k2\n'),
      TEMPORAL_API_KEY_FILE: file('temporal', 'tcld-key\n'),
    });
    expect(config.databaseUrl).toBe('postgres://relayer:s3cret@db:5432/relayer');
    expect(config.redisUrl).toBe('rediss://:pw@cache:6380');
    expect(config.rpcUrls).toEqual(['https://eth.example/v3/k1', 'https://backup.example/k2']);
    expect(config.temporal.connection).toMatchObject({ apiKey: 'tcld-key', tls: true });
    expect(config.webhookSecretsKey).toBeDefined();
  });

  it('refuses both ways at once and a file it cannot read, naming the variable; never echoes what a file holds', () => {
    const refused = (env: Record<string, string>) => {
      try {
        loadConfig({ HOT_WALLET_KEYS: key, ...env });
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error('loaded');
    };
    expect(
      refused({ DATABASE_URL: 'sqlite:x', DATABASE_URL_FILE: file('db2', 'sqlite:y') }),
    ).toContain('DATABASE_URL, DATABASE_URL_FILE: both set; give the value one way');
    expect(refused({ REDIS_URL_FILE: join(dir, 'absent') })).toContain(
      `REDIS_URL_FILE: cannot read ${join(dir, 'absent')} (ENOENT)`,
    );
    const wrong = refused({ DATABASE_URL_FILE: file('db3', 'mysql://root:hunter2@db/relayer') });
    expect(wrong).toContain('DATABASE_URL: must start with postgres://');
    expect(wrong).not.toContain('hunter2');
  });

  it('keeps HOT_WALLET_KEYS_FILE its own format: a key a line, # comments', () => {
    const config = loadConfig({ HOT_WALLET_KEYS_FILE: file('keys', `# wallet one\n${key}\n`) });
    expect(config.hotWalletKeysFile).toEqual([key]);
  });
});
