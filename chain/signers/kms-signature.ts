import { secp256k1 } from '@noble/curves/secp256k1';
import { createPublicKey } from 'node:crypto';
import { numberToHex } from 'viem';
import type { Hex } from '../../domain/transfer';

/**
 * AWS KMS signs a digest with a secp256k1 key and answers in X.509/DER: the public key as a
 * SubjectPublicKeyInfo, a signature as DER `r, s` without a recovery id, and about half of them
 * with a high `s`, which Ethereum refuses (EIP-2). These turn that into what a transaction needs.
 */

/** The uncompressed public key (0x04‖x‖y) of a DER SubjectPublicKeyInfo; a key on another curve
 * gives its curve's name instead. */
export function publicKeyOfSpki(spki: Uint8Array): Hex | { curve: string } {
  const jwk = createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' }).export({
    format: 'jwk',
  });
  if (jwk.crv !== 'secp256k1' || !jwk.x || !jwk.y) return { curve: jwk.crv ?? 'no' };
  const coordinate = (base64url: string) => Buffer.from(base64url, 'base64url').toString('hex');
  return `0x04${coordinate(jwk.x)}${coordinate(jwk.y)}`;
}

export interface EthereumSignature {
  r: Hex;
  s: Hex;
  yParity: 0 | 1;
}

/**
 * A DER signature of `digest` as Ethereum wants it: `s` in the low half of the curve order, and
 * the recovery id whose recovered key is `publicKey` (the signature itself does not say);
 * undefined when neither recovery id gives `publicKey` (another key signed).
 */
export function ethereumSignature(
  der: Uint8Array,
  digest: Hex,
  publicKey: Hex,
): EthereumSignature | undefined {
  const signature = secp256k1.Signature.fromDER(der).normalizeS();
  const expected = publicKey.slice(2).toLowerCase();
  for (const yParity of [0, 1] as const) {
    const recovered = signature.addRecoveryBit(yParity).recoverPublicKey(digest.slice(2));
    if (recovered.toHex(false) === expected) {
      return {
        r: numberToHex(signature.r, { size: 32 }),
        s: numberToHex(signature.s, { size: 32 }),
        yParity,
      };
    }
  }
  return undefined;
}
