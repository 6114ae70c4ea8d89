import { getAddress, isAddress } from 'viem';
import type { Hex } from './transfer';

/** Which signer holds a wallet whose key is not in the process. */
export type SignerSetting =
  { address: Hex; kind: 'kms'; keyId: string } | { address: Hex; kind: 'remote'; url: string };

export const signerKinds = ['kms', 'remote'] as const;

/**
 * `kms:<key id, ARN or alias>` or `remote:<http(s) URL>` for `address`, as WALLET_SIGNERS and
 * `wallets add` write it; a problem (never echoing the URL, which may carry credentials) otherwise.
 */
export function parseSignerSetting(
  address: string,
  signer: string,
):
  | { ok: true; setting: SignerSetting }
  | { ok: false; field: 'address' | 'signer'; problem: string } {
  const refuse = (problem: string, field: 'address' | 'signer' = 'signer') => ({
    ok: false as const,
    field,
    problem,
  });
  if (!isAddress(address, { strict: false })) {
    return refuse(`${address} is not an address (0x followed by 40 hex digits)`, 'address');
  }
  const colon = signer.indexOf(':');
  const kind = colon < 0 ? signer : signer.slice(0, colon);
  const reference = colon < 0 ? '' : signer.slice(colon + 1).trim();
  const wallet = getAddress(address);
  if (kind === 'kms') {
    if (!reference) return refuse('kms needs a key id, key ARN or alias (kms:alias/hot-1)');
    return { ok: true, setting: { address: wallet, kind, keyId: reference } };
  }
  if (kind === 'remote') {
    if (!isHttpUrl(reference)) return refuse('remote needs an http(s) URL (remote:https://…)');
    return { ok: true, setting: { address: wallet, kind, url: reference } };
  }
  return refuse(`unknown signer kind "${kind}" (one of ${signerKinds.join(', ')})`);
}

/** The signer as logs and the API show it: a remote signer by its host only. */
export function signerLabel(setting: SignerSetting): string {
  return setting.kind === 'kms' ? `kms:${setting.keyId}` : `remote:${new URL(setting.url).host}`;
}

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}
