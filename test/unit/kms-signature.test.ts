import { secp256k1 } from '@noble/curves/secp256k1';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { keccak256, recoverAddress, toHex, type Hex } from 'viem';
import { privateKeyToAccount, publicKeyToAddress } from 'viem/accounts';
import { ethereumSignature, publicKeyOfSpki } from '../../chain/signers/kms-signature';

const privateKey = `0x${'4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318'}` as Hex;
const account = privateKeyToAccount(privateKey);
const publicKey = account.publicKey;
const { n } = secp256k1.CURVE;

/** A signature of `digest` as KMS would answer it: DER, with `s` as given (high or low). */
function kmsLike(digest: Hex, { highS }: { highS: boolean }) {
  const signature = secp256k1.sign(digest.slice(2), privateKey.slice(2), { lowS: true });
  const s = highS ? n - signature.s : signature.s;
  return { der: new secp256k1.Signature(signature.r, s).toDERRawBytes(), r: signature.r };
}

/** Digests until `want` holds for the signature's r (its byte length decides the DER form). */
function digestWhere(want: (r: bigint) => boolean): Hex {
  for (let i = 0; ; i++) {
    const digest = keccak256(toHex(`payment ${i}`));
    if (want(secp256k1.sign(digest.slice(2), privateKey.slice(2)).r)) return digest;
  }
}

async function expectSignedByWallet(der: Uint8Array, digest: Hex) {
  const signature = ethereumSignature(der, digest, publicKey)!;
  expect(signature).toBeDefined();
  expect(BigInt(signature.s) <= n / 2n).toBe(true);
  expect(await recoverAddress({ hash: digest, signature })).toBe(account.address);
  return signature;
}

describe('a KMS signature made fit for Ethereum', () => {
  it('reads an r of 31 bytes (DER drops the leading zero byte)', async () => {
    const digest = digestWhere((r) => r < 2n ** 247n);
    const { der, r } = kmsLike(digest, { highS: false });
    expect(der[3]).toBe(31); // SEQUENCE, length, INTEGER, length of r
    const signature = await expectSignedByWallet(der, digest);
    expect(BigInt(signature.r)).toBe(r);
    expect(signature.r).toHaveLength(66); // padded back to 32 bytes
  });

  it('reads an r with its high bit set (DER pads it with a zero byte to 33)', async () => {
    const digest = digestWhere((r) => r >= 2n ** 255n);
    const { der } = kmsLike(digest, { highS: false });
    expect(der[3]).toBe(33);
    expect(der[4]).toBe(0);
    await expectSignedByWallet(der, digest);
  });

  it('moves a high s to the low half, and picks the recovery id that yields the key', async () => {
    const parities = new Set<number>();
    for (let i = 0; i < 16; i++) {
      const digest = keccak256(toHex(`transfer ${i}`));
      const high = kmsLike(digest, { highS: true });
      const low = kmsLike(digest, { highS: false });
      const fromHigh = await expectSignedByWallet(high.der, digest);
      expect(fromHigh).toEqual(ethereumSignature(low.der, digest, publicKey));
      parities.add(fromHigh.yParity);
    }
    // Both recovery ids come up: the choice is made, not assumed.
    expect([...parities].sort()).toEqual([0, 1]);
  });

  it('refuses a signature made by another key', () => {
    const digest = keccak256(toHex('not ours'));
    const other = secp256k1.sign(digest.slice(2), `${'1'.repeat(64)}`);
    expect(ethereumSignature(other.toDERRawBytes(), digest, publicKey)).toBeUndefined();
  });
});

describe("a KMS key's public key", () => {
  it('is read from its SubjectPublicKeyInfo and gives the wallet address', () => {
    const spki = createPublicKey({
      key: { kty: 'EC', crv: 'secp256k1', x: jwkOf(publicKey).x, y: jwkOf(publicKey).y },
      format: 'jwk',
    }).export({ format: 'der', type: 'spki' });
    expect(publicKeyOfSpki(spki)).toBe(publicKey);
    expect(publicKeyToAddress(publicKeyOfSpki(spki) as Hex)).toBe(account.address);
  });

  it('refuses a key on another curve', () => {
    const { publicKey: p256 } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(publicKeyOfSpki(p256.export({ format: 'der', type: 'spki' }))).toEqual({
      curve: 'P-256',
    });
  });
});

function jwkOf(uncompressed: Hex) {
  const bytes = Buffer.from(uncompressed.slice(4), 'hex');
  return {
    x: bytes.subarray(0, 32).toString('base64url'),
    y: bytes.subarray(32).toString('base64url'),
  };
}
