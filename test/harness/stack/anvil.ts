import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createPublicClient, http } from 'viem';
import { reapChildrenOnExit, stopProcess } from './children';
import { waitFor } from './wait-for';
import { freePort } from './free-port';

/** anvil's well-known development mnemonic: its keys hold test ether only on local chains. */
const devMnemonic = 'test test test test test test test test test test test junk';

export interface AnvilOptions {
  port?: number;
  chainId?: number;
  /** Omit for automine (a block per transaction); set to mine on an interval instead. */
  blockTimeSeconds?: number;
  accounts?: number;
  /** Another mnemonic than anvil's usual one: other development accounts (a remote signer's). */
  mnemonic?: string;
  /** An older EVM, e.g. `berlin`: before London, a chain without EIP-1559 (legacy gas only). */
  hardfork?: string;
  /** The finalized block trails the head by two epochs of this many slots (anvil's: 32). */
  slotsInAnEpoch?: number;
}

export interface Anvil {
  rpcUrl: string;
  port: number;
  chainId: number;
  /** Private keys of the funded development accounts, in anvil's order. */
  keys: `0x${string}`[];
  /** The node's process, for measuring what it costs. */
  pid: number;
  stop(): Promise<void>;
}

/** The binary from the npm package @foundry-rs/anvil's platform package, started directly. */
function anvilBinary(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  try {
    return join(dirname(require.resolve(`${pkg}/package.json`)), 'bin', 'anvil');
  } catch {
    throw new Error(
      `anvil is not installed for ${process.platform}/${process.arch} (${pkg}); run npm install`,
    );
  }
}

export async function startAnvil(options: AnvilOptions = {}): Promise<Anvil> {
  const port = options.port ?? (await freePort());
  const chainId = options.chainId ?? 31337;
  const accounts = options.accounts ?? 10;
  const mnemonic = options.mnemonic ?? devMnemonic;
  // anvil writes its accounts' keys out: deriving ten from the mnemonic here costs ~0.5 s of CPU.
  const configDir = mkdtempSync(join(tmpdir(), 'anvil-'));
  const configOut = join(configDir, 'config.json');
  const args = ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(chainId)];
  args.push('--accounts', String(accounts), '--mnemonic', mnemonic, '--silent');
  args.push('--config-out', configOut);
  if (options.hardfork) args.push('--hardfork', options.hardfork);
  if (options.slotsInAnEpoch) args.push('--slots-in-an-epoch', String(options.slotsInAnEpoch));
  if (options.blockTimeSeconds !== undefined)
    args.push('--block-time', String(options.blockTimeSeconds));
  reapChildrenOnExit();
  const child = spawn(anvilBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const rpcUrl = `http://127.0.0.1:${port}`;
  try {
    await waitForRpc(rpcUrl, child, () => stderr);
    // anvil may answer before its config file is out (seen on a machine beside a CPU hog).
    let keys: `0x${string}`[] = [];
    await waitFor(() => {
      try {
        ({ private_keys: keys } = JSON.parse(readFileSync(configOut, 'utf8')) as {
          private_keys: `0x${string}`[];
        });
        return keys.length === accounts;
      } catch {
        return false;
      }
    }, `anvil's accounts in ${configOut}`);
    return { rpcUrl, port, chainId, keys, pid: child.pid!, stop: () => stopProcess(child) };
  } catch (error) {
    await stopProcess(child);
    throw error;
  } finally {
    rmSync(configDir, { recursive: true, force: true });
  }
}

async function waitForRpc(
  rpcUrl: string,
  child: ChildProcess,
  stderr: () => string,
): Promise<void> {
  const client = createPublicClient({ transport: http(rpcUrl, { retryCount: 0, timeout: 500 }) });
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`anvil exited (${child.exitCode}): ${stderr()}`);
    try {
      await client.getChainId();
      return;
    } catch (error) {
      if (Date.now() > deadline)
        throw new Error(`anvil did not answer on ${rpcUrl}`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
