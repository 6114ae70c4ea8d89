import { readFileSync } from 'node:fs';
import { getAddress, isAddress, isHex } from 'viem';
import { z } from 'zod';
import type { Hex } from '../domain/transfer';

/** Which signer holds a wallet that is not a local key. */
export type SignerSetting =
  { address: Hex; kind: 'kms'; keyId: string } | { address: Hex; kind: 'remote'; url: string };

export const signerKinds = ['kms', 'remote'] as const;

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
    const problem = (message: string) =>
      context.addIssue({ code: 'custom', message: `entry ${i + 1}: ${message}` });
    const equals = entry.indexOf('=');
    const colon = entry.indexOf(':', equals + 1);
    if (equals < 0 || colon < 0) {
      return problem('must be written <address>=kms:<key id> or <address>=remote:<url>');
    }
    const address = entry.slice(0, equals);
    const kind = entry.slice(equals + 1, colon);
    const reference = entry.slice(colon + 1).trim();
    if (!isAddress(address, { strict: false })) {
      return problem(`${address} is not an address (0x followed by 40 hex digits)`);
    }
    if (kind === 'kms') {
      if (!reference) return problem('kms needs a key id, key ARN or alias (kms:alias/hot-1)');
      return signers.push({ address: getAddress(address), kind, keyId: reference });
    }
    if (kind === 'remote') {
      if (!isHttpUrl(reference)) return problem('remote needs an http(s) URL (remote:https://…)');
      return signers.push({ address: getAddress(address), kind, url: reference });
    }
    return problem(`unknown signer kind "${kind}" (one of ${signerKinds.join(', ')})`);
  });
  return signers;
});

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

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
