import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { nodeArgumentsFor } from './stack/compiled-entries';
import { freePort } from './stack/free-port';
import { startRelayerProcess, type RelayerProcess } from '../../workers/relayer-process';
import { useWorld } from './test-world';

export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `npm run relayer -- …args` as a user runs it, with `base` in its environment (the API's URL,
 * the database); never throws, returns what it printed and its exit code.
 */
export const relayerCliWith =
  (base: () => Record<string, string>) =>
  async (args: string[], env: Record<string, string> = {}): Promise<CliOutcome> => {
    try {
      const { stdout, stderr } = await promisify(execFile)(
        process.execPath,
        [...nodeArgumentsFor('cli/relayer.ts'), ...args],
        { cwd: resolve(__dirname, '../..'), env: { ...process.env, ...base(), ...env } },
      );
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as CliOutcome;
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };

/**
 * A test file's world with one relayer (worker and API) in the test's process, and the CLI run
 * against its API and database.
 */
export function useCliRelayer() {
  const world = useWorld();
  let relayer: RelayerProcess | undefined;
  beforeAll(async () => {
    relayer = await startRelayerProcess(
      world.config({ API_PORT: String(await freePort()), TASK_QUEUE: `cli-${randomUUID()}` }),
      ['worker', 'api'],
    );
  });
  world.onStop(() => relayer?.stop());
  const apiUrl = () => relayer!.apiUrl!;
  const relayerCli = relayerCliWith(() => ({
    RELAYER_API_URL: apiUrl(),
    DATABASE_URL: world.databaseUrl,
  }));
  return { world, relayerCli, apiUrl };
}
