import { privateKeyToAccount } from 'viem/accounts';
import { deployDepositFactory } from './deposit-factory';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startAnvil, type Anvil } from './anvil';
import { deployerClient } from './solidity';
import { deployTestToken, type TestToken } from './test-tokens';
import type { Progress } from './toolchain';
import { startDevServer } from './temporal-servers';

export interface EmbeddedStackOptions {
  /** Holds the dev server's and the relayer's SQLite files; emptied at start. */
  dir: string;
  temporalPort: number;
  uiPort: number;
  anvilPort: number;
  progress: Progress;
}

export interface EmbeddedStack {
  temporal: TestWorkflowEnvironment;
  webUiUrl: string;
  /** The home chain: a block per transaction. */
  anvil: Anvil;
  /** A second chain with a block every second, on a port of its own. */
  secondAnvil: Anvil;
  /** Both chains as a relayer serves them (CHAINS_FILE), written in the state dir. */
  chainsFile: string;
  /**
   * A stablecoin on the second chain (USDT, 6 decimals): the treasury holds a million and tops
   * the hot wallets up in it; the deployer account (a customer) holds ten thousand to deposit.
   */
  depositToken: TestToken;
  databaseUrl: string;
  stop(): Promise<void>;
}

/** The second chain's block time: the relayer waits for blocks there, as on a real chain. */
const secondChainBlockSeconds = 1;

/**
 * Temporal dev server (with Web UI), two anvils and an SQLite file: everything a worker needs, on one
 * machine, without a network. Each start is a fresh world: anvil keeps its chain in memory, so
 * an old database would hold nonces the new chain never saw.
 */
export async function startEmbeddedStack(options: EmbeddedStackOptions): Promise<EmbeddedStack> {
  const dir = resolve(options.dir);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  options.progress(`state in ${dir} (the dev server's own log: temporal.log)`);
  const [temporalStart, anvilStart, secondStart] = await Promise.allSettled([
    startDevServer({
      port: options.temporalPort,
      uiPort: options.uiPort,
      dbFilename: join(dir, 'temporal.sqlite'),
      logPath: join(dir, 'temporal.log'),
      progress: options.progress,
    }),
    startAnvil({ port: options.anvilPort }),
    startAnvil({ chainId: 31_338, blockTimeSeconds: secondChainBlockSeconds }),
  ]);
  if (
    temporalStart.status === 'rejected' ||
    anvilStart.status === 'rejected' ||
    secondStart.status === 'rejected'
  ) {
    if (temporalStart.status === 'fulfilled') await temporalStart.value.teardown();
    if (anvilStart.status === 'fulfilled') await anvilStart.value.stop();
    if (secondStart.status === 'fulfilled') await secondStart.value.stop();
    if (secondStart.status === 'rejected') throw secondStart.reason;
    throw temporalStart.status === 'rejected'
      ? new Error(
          `could not start the Temporal dev server on port ${options.temporalPort} ` +
            '(is another one running? choose others with --temporal-port and --ui-port)',
          { cause: temporalStart.reason },
        )
      : new Error(`could not start anvil on port ${options.anvilPort} (--anvil-port)`, {
          cause: (anvilStart as PromiseRejectedResult).reason,
        });
  }
  const temporal = temporalStart.value;
  const anvil = anvilStart.value;
  const secondAnvil = secondStart.value;
  const treasury = privateKeyToAccount(anvil.keys[2]!).address;
  // Tenants fund their books on the second chain by sending to their deposit addresses.
  // One after the other: both are sent from the deployer account.
  const deployed = async () => ({
    depositFactory: await deployDepositFactory(secondAnvil, treasury),
    depositToken: await demoStablecoin(secondAnvil, treasury),
  });
  const { depositFactory, depositToken } = await deployed().catch(async (error: unknown) => {
    await Promise.all([temporal.teardown(), anvil.stop(), secondAnvil.stop()]);
    throw error;
  });
  const chainsFile = join(dir, 'chains.yaml');
  writeFileSync(
    chainsFile,
    [
      '# The chains this demo relayer serves (CHAINS_FILE): each with its own settings.',
      'chains:',
      `  - chainId: ${anvil.chainId}`,
      '    name: home',
      `    rpc: [${anvil.rpcUrl}]`,
      '    blockTimeMs: 0 # a block per transaction',
      "    # The hot wallets are kept near their 10 000 ETH from a treasury (anvil's third key):",
      '    # one that dips half an ether gets a top-up.',
      `    treasury: '${treasury}'`,
      '    lowBalanceEth: 9999.5',
      '    topUpTargetEth: 10000',
      `  - chainId: ${secondAnvil.chainId}`,
      '    name: second',
      `    rpc: [{ url: ${secondAnvil.rpcUrl}, unitsPerSecond: 50, burstUnits: 50 }]`,
      `    blockTimeMs: ${secondChainBlockSeconds * 1000}`,
      '    confirmations: 2',
      '    finality: 3 # blocks deep: a deposit is credited three blocks after its own',
      '    # Deposit addresses follow from this factory, owned by the treasury, which sweeps them.',
      `    depositFactory: '${depositFactory}'`,
      `    treasury: '${treasury}'`,
      '    lowBalanceEth: 9999.5',
      '    topUpTargetEth: 10000',
      `    tokenTopUps: [{ token: '${depositToken.address}', lowBalance: 1000, topUpTarget: 10000 }] # USDT`,
      '',
    ].join('\n'),
  );
  return {
    temporal,
    webUiUrl: `http://localhost:${options.uiPort}`,
    anvil,
    secondAnvil,
    chainsFile,
    depositToken,
    databaseUrl: `sqlite:${join(dir, 'relayer.sqlite')}`,
    async stop() {
      await Promise.all([temporal.teardown(), anvil.stop(), secondAnvil.stop()]);
    },
  };
}

/** The demo's USDT on `chain`: a million for the treasury, ten thousand for a customer. */
async function demoStablecoin(chain: Anvil, treasury: `0x${string}`): Promise<TestToken> {
  const token = await deployTestToken(chain, 'standard', { symbol: 'USDT', decimals: 6 });
  await token.write('mint', [treasury, 1_000_000n * 10n ** 6n]);
  await token.write('mint', [deployerClient(chain).account.address, 10_000n * 10n ** 6n]);
  return token;
}
