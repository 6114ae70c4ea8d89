import { readFileSync } from 'node:fs';
import type { Setting } from './parsers';

/**
 * HOT_WALLET_KEYS reads its file its own way (HOT_WALLET_KEYS_FILE: a key a line, # comments),
 * older than the rule and kept.
 */
const ownFileFormat = new Set(['HOT_WALLET_KEYS']);

/**
 * The variable that names a file holding a secret setting's value, as containers hand them over.
 */
export const fileVariableOf = (s: Setting<unknown>): string | undefined =>
  s.secret && !ownFileFormat.has(s.env) ? `${s.env}_FILE` : undefined;

/**
 * `env` with each secret setting given as `<NAME>_FILE` read into `<NAME>` (the file's content,
 * its trailing newline dropped): one rule for every secret (Docker and Kubernetes secrets are
 * files). Both given, or a file that cannot be read, is a problem naming the variable.
 */
export function withSecretFiles(
  env: Record<string, string | undefined>,
  settings: readonly Setting<unknown>[],
): { env: Record<string, string | undefined>; problems: string[] } {
  const read = { ...env };
  const problems: string[] = [];
  for (const s of settings) {
    const variable = fileVariableOf(s);
    const path = variable && env[variable]?.trim();
    if (!variable || !path) continue;
    if (env[s.env]?.trim()) {
      problems.push(`${s.env}, ${variable}: both set; give the value one way`);
      continue;
    }
    try {
      read[s.env] = readFileSync(path, 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      problems.push(`${variable}: cannot read ${path} (${(error as NodeJS.ErrnoException).code})`);
    }
  }
  return { env: read, problems };
}
