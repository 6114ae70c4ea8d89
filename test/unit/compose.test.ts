import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { treasuryShellSettings } from '../../workers/provision-kms-treasury';
import { settings } from '../../workers/config/settings';
import { loadConfig } from '../../workers/config/load';
import { formatEther } from 'viem';

const compose = readFileSync(resolve(__dirname, '../../docker-compose.yml'), 'utf8');

/** The workers' shared environment block of the compose file (the `&relayer-environment` map). */
function workerEnvironment(): Record<string, string> {
  const block = compose.split('environment: &relayer-environment\n')[1]!.split(/\n {2}\S/)[0]!;
  return Object.fromEntries(
    block
      .split('\n')
      .map((line) => /^ {4}([A-Z_]+): '?([^']*)'?$/.exec(line))
      .filter((match) => match !== null)
      .map((match) => [match[1]!, match[2]!]),
  );
}

/** Read by the AWS SDK's default credential chain, not by the relayer's settings. */
const awsSdkVariables = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'];

/** Any address: the stack's KMS makes the treasury's key when it starts. */
const kmsTreasury = '0x000000000000000000000000000000000000bEEF';

/**
 * TREASURY_WALLET and WALLET_SIGNERS as a worker's shell has them once it has read the settings
 * the stack's treasury-key step writes, with `walletSigners` (the stack's) already set.
 */
function treasurySettings(walletSigners: string): Record<string, string> {
  const shown = execFileSync(
    'sh',
    ['-c', `${treasuryShellSettings(kmsTreasury, 'alias/relayer-treasury')}\nenv`],
    { env: { WALLET_SIGNERS: walletSigners }, encoding: 'utf8' },
  );
  const settings = Object.fromEntries(shown.split('\n').map((line) => line.split(/=(.*)/s)));
  return { TREASURY_WALLET: settings.TREASURY_WALLET, WALLET_SIGNERS: settings.WALLET_SIGNERS };
}

describe('docker-compose.yml', () => {
  it('sets every worker setting, and nothing the workers do not read', () => {
    const documented = Object.values(settings).map((setting) => setting.env);
    expect(Object.keys(workerEnvironment()).sort()).toEqual(
      [...documented, ...awsSdkVariables].sort(),
    );
  });

  it('writes no signing key inline: they come from a secret file or a key store', () => {
    const environment = workerEnvironment();
    expect(environment.HOT_WALLET_KEYS).toBe('');
    expect(environment.HOT_WALLET_KEYS_FILE).toBe('/run/secrets/hot-wallet-keys');
    expect(environment.WALLET_SIGNERS).toBe('${WALLET_SIGNERS:-}');
    expect(compose).not.toMatch(/0x[0-9a-fA-F]{64}/);
  });

  it('signs for the treasury with a KMS key the stack makes, and its workers read it before they start', () => {
    const services = (
      parse(compose, { merge: true }) as {
        services: Record<string, { command?: string[]; environment?: Record<string, string> }>;
      }
    ).services;
    const settingsFile = services['treasury-key']!.environment!.TREASURY_SETTINGS_FILE!;
    expect(services['worker-1']!.command!.at(-1)).toBe(
      `. ${settingsFile} && exec node dist/workers/worker-main.js`,
    );
    expect(services['treasury-key']!.environment!.KMS_ENDPOINT).toBe(
      workerEnvironment().KMS_ENDPOINT,
    );
    expect(treasurySettings('')).toEqual({
      TREASURY_WALLET: kmsTreasury,
      WALLET_SIGNERS: `${kmsTreasury}=kms:alias/relayer-treasury`,
    });
    expect(
      treasurySettings('0x00000000000000000000000000000000000000aA=remote:http://signer'),
    ).toEqual({
      TREASURY_WALLET: kmsTreasury,
      WALLET_SIGNERS: `0x00000000000000000000000000000000000000aA=remote:http://signer,${kmsTreasury}=kms:alias/relayer-treasury`,
    });
  });

  it('lets a worker drain before it is killed: DRAIN_TIMEOUT_MS below the stop grace period', () => {
    const drainMs = Number(workerEnvironment().DRAIN_TIMEOUT_MS);
    const grace = /stop_grace_period: (\d+)s/.exec(compose);
    expect(grace).not.toBeNull();
    expect(drainMs).toBeLessThan(Number(grace![1]) * 1000);
  });

  it('mounts a chains file the relayer accepts: two chains of different block times, one without EIP-1559', () => {
    expect(workerEnvironment().CHAINS_FILE).toBe('/etc/relayer/chains.yaml');
    expect(compose).toContain('./deploy/chains.yaml:/etc/relayer/chains.yaml:ro');
    // Read as a worker of the stack would: compose's settings (${VAR:-default} as its default).
    const environment = Object.fromEntries(
      Object.entries(workerEnvironment()).map(([name, value]) => [
        name,
        value.replace(/^\$\{\w+:-(.*)\}$/, '$1'),
      ]),
    );
    const { chains } = loadConfig({
      ...environment,
      ...treasurySettings(environment.WALLET_SIGNERS!),
      HOT_WALLET_KEYS_FILE: resolve(__dirname, '../../deploy/anvil-dev-wallet-keys'),
      CHAINS_FILE: resolve(__dirname, '../../deploy/chains.yaml'),
    });
    expect(
      chains.map((c) => [
        c.chainId,
        c.blockTimeMs,
        c.gasPricing,
        c.endpoints[0]!.url,
        c.treasury?.address,
        formatEther(c.topUpTargetWei),
      ]),
    ).toEqual([
      [31337, 1000, 'eip1559', 'http://anvil:8545', kmsTreasury, '2'],
      [31338, 3000, 'legacy', 'http://anvil-legacy:8545', kmsTreasury, '5'],
    ]);
    expect(compose).toMatch(
      /--chain-id\s+- '31338'[\s\S]*--block-time\s+- '3'[\s\S]*--hardfork\s+- berlin/,
    );
  });
});
