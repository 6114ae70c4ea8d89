import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { nodeArgumentsFor } from '../../dev/stack/compiled-entries';

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
