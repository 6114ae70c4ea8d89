import { readFileSync } from 'node:fs';
import { isHex } from 'viem';
import { z } from 'zod';
import type { Hex } from '../domain/transfer';
import { parseSignerSetting, type SignerSetting } from '../domain/wallet-signer-setting';

/**
 * WALLET_SIGNERS: `<address>=kms:<key id, ARN or alias>` or `<address>=remote:<http(s) URL>`,
 * comma-separated. Problems name the entry by its position, never echo a URL (it may carry
 * credentials).
 */
export const walletSignersSetting = z.string().transform((value, context): SignerSetting[] => {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const signers: SignerSetting[] = [];
  entries.forEach((entry, i) => {
    const equals = entry.indexOf('=');
    const parsed =
      equals < 0
        ? {
            ok: false as const,
            problem: 'must be written <address>=kms:<key id> or <address>=remote:<url>',
          }
        : parseSignerSetting(entry.slice(0, equals), entry.slice(equals + 1));
    if (parsed.ok) signers.push(parsed.setting);
    else context.addIssue({ code: 'custom', message: `entry ${i + 1}: ${parsed.problem}` });
  });
  return signers;
});

/** HOT_WALLET_KEYS_FILE: a file of private keys, one per line (a mounted secret); # comments. */
export const keysFileSetting = z.string().transform((path, context): Hex[] => {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    context.addIssue({
      code: 'custom',
      message: `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    });
    return [];
  }
  const keys = text
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter(Boolean);
  keys.forEach((key, i) => {
    if (!isHex(key) || key.length !== 66) {
      context.addIssue({
        code: 'custom',
        message: `key ${i + 1} of ${path} must be 0x followed by 64 hex digits (a private key)`,
      });
    }
  });
  if (keys.length === 0) context.addIssue({ code: 'custom', message: `${path} holds no key` });
  return keys as Hex[];
});
