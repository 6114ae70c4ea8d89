import {
  CreateAliasCommand,
  CreateKeyCommand,
  KMSClient,
  ListKeysCommand,
} from '@aws-sdk/client-kms';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reapChildrenOnExit, stopProcess } from './children';
import { freePort } from './free-port';
import {
  cacheDir,
  fromEnv,
  isExecutable,
  onPath,
  progressOf,
  goInstall,
  ToolchainMissingError,
  type Progress,
  type ResolvedTool,
} from './toolchain';

/** The pseudo-version the Go module proxy serves (the module has no tags). */
export const localKmsVersion = 'v0.0.0-20260228092603-2a5e92d09ab6';

const cachedBinary = join(cacheDir, `local-kms-${localKmsVersion}`, 'local-kms');

/** local-kms's own default region and account; any credentials are accepted. */
export const localKmsRegion = 'eu-west-2';
const anyCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };

/**
 * local-kms (github.com/nsmithuk/local-kms), an AWS KMS for tests that signs with secp256k1 keys
 * like the real one (DER, high s about half the time): LOCAL_KMS_PATH, the cache, PATH, else
 * built with Go from the module proxy (seconds, once per machine).
 */
export async function ensureLocalKms(
  progress: Progress = progressOf('local-kms'),
): Promise<ResolvedTool> {
  const explicit = fromEnv('LOCAL_KMS_PATH');
  if (explicit) return explicit;
  if (isExecutable(cachedBinary)) return { path: cachedBinary, source: 'cache' };
  const installed = onPath('local-kms');
  if (installed) return { path: installed, source: 'PATH' };
  if (!onPath('go')) {
    throw new ToolchainMissingError(
      'local-kms not found: install Go (https://go.dev/dl/; it is built from the Go module proxy), or set LOCAL_KMS_PATH',
    );
  }
  progress(`building local-kms ${localKmsVersion} with Go into ${cachedBinary} (once)`);
  await goInstall(
    `github.com/nsmithuk/local-kms@${localKmsVersion}`,
    join(cachedBinary, '..'),
    progress,
  );
  return { path: cachedBinary, source: 'built now' };
}

export interface LocalKms {
  endpoint: string;
  /** A client of it, for the test's own calls (creating keys). */
  client: KMSClient;
  /** A new secp256k1 signing key, under `alias` when given; its key id. */
  createSigningKey(alias?: string): Promise<string>;
  /** SIGKILL: KMS gone mid-run. Its keys stay in its data directory. */
  kill(): Promise<void>;
  /** Started again on the same port and data: the same keys. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** A throwaway local-kms on a free port, its keys in a temporary directory. */
export async function startLocalKms(): Promise<LocalKms> {
  const { path } = await ensureLocalKms();
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'local-kms-'));
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new KMSClient({
    endpoint,
    region: localKmsRegion,
    credentials: anyCredentials,
    maxAttempts: 1,
  });
  reapChildrenOnExit();
  let child: ChildProcess;
  const launch = async () => {
    child = spawn(path, [], {
      env: {
        PORT: String(port),
        KMS_DATA_PATH: dataDir,
        KMS_SEED_PATH: join(dataDir, 'no-seed.yaml'),
        KMS_REGION: localKmsRegion,
      },
      stdio: 'ignore',
    });
    await waitUntilServing(client, child);
  };
  await launch();
  return {
    endpoint,
    client,
    async createSigningKey(alias) {
      const created = await client.send(
        new CreateKeyCommand({ KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY' }),
      );
      const keyId = created.KeyMetadata!.KeyId!;
      if (alias)
        await client.send(new CreateAliasCommand({ AliasName: alias, TargetKeyId: keyId }));
      return keyId;
    },
    kill: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
    restart: launch,
    async stop() {
      await stopProcess(child);
      client.destroy();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function waitUntilServing(client: KMSClient, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await client.send(new ListKeysCommand({}));
      return;
    } catch (error) {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error('local-kms did not start', { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
