import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { format } from 'node:util';
import { runCli } from '../../cli/run';
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
 * The CLI run inside the test's process, as `relayerCliWith` runs it in its own: for what needs
 * no process of its own (flags refused, a database read), without the cost of starting one.
 */
export const relayerCliInProcessWith =
  (base: () => Record<string, string>) =>
  async (args: string[], env: Record<string, string> = {}): Promise<CliOutcome> => {
    const settings = { ...base(), ...env };
    const saved = Object.fromEntries(Object.keys(settings).map((key) => [key, process.env[key]]));
    const printed = { stdout: '', stderr: '' };
    const into = (stream: keyof typeof printed) => (chunk: unknown) => {
      printed[stream] += String(chunk);
      return true;
    };
    const spies = [
      jest
        .spyOn(console, 'log')
        .mockImplementation((...said) => into('stdout')(format(...said) + '\n')),
      jest
        .spyOn(console, 'error')
        .mockImplementation((...said) => into('stderr')(format(...said) + '\n')),
      jest.spyOn(process.stdout, 'write').mockImplementation(into('stdout')),
      jest.spyOn(process.stderr, 'write').mockImplementation(into('stderr')),
    ];
    Object.assign(process.env, settings);
    try {
      const code = await runCli([process.execPath, 'relayer', ...args]);
      return { code: code || Number(process.exitCode ?? 0), ...printed };
    } finally {
      process.exitCode = undefined;
      for (const spy of spies) spy.mockRestore();
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
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
  const cliEnv = () => ({ RELAYER_API_URL: apiUrl(), DATABASE_URL: world.databaseUrl });
  const relayerCli = relayerCliWith(cliEnv);
  const relayerCliInProcess = relayerCliInProcessWith(cliEnv);
  return { world, relayerCli, relayerCliInProcess, apiUrl };
}
