import {
  GetPublicKeyCommand,
  KMSServiceException,
  SignCommand,
  type KMSClient,
} from '@aws-sdk/client-kms';
import { secp256k1 } from '@noble/curves/secp256k1';
import { createPublicKey } from 'node:crypto';
import { parseGwei, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { kmsSigner } from '../../chain/signers/kms-signer';
import { waitFor } from '../harness/stack/wait-for';
import { signingSlots } from '../../chain/signers/signing-slots';
import { signChecked, type SignableTransfer } from '../../chain/signers/wallet-signer';
import { RelayerError } from '../../domain/errors';
import { ErrorName } from '../../domain/error-catalogue';

const privateKey: Hex = '0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';
const wallet = privateKeyToAccount(privateKey);

/** The key's SubjectPublicKeyInfo, as GetPublicKey answers it. */
function spki(): Uint8Array {
  const point = Buffer.from(wallet.publicKey.slice(4), 'hex');
  return createPublicKey({
    key: {
      kty: 'EC',
      crv: 'secp256k1',
      x: point.subarray(0, 32).toString('base64url'),
      y: point.subarray(32).toString('base64url'),
    },
    format: 'jwk',
  }).export({ format: 'der', type: 'spki' });
}

/**
 * KMS at the client seam: signs digests with the key, every other answer with a high s as the
 * real one does about half the time, and counts the requests in flight.
 */
function fakeKms(fail?: () => Error) {
  let signed = 0;
  let inFlight = 0;
  let mostInFlight = 0;
  // Sign requests wait here until the test opens the gate: what is in flight stays in flight.
  let openGate: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (openGate = resolve));
  const client = {
    async send(command: unknown) {
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      try {
        if (command instanceof SignCommand && !fail) await gate;
        if (fail) throw fail();
        if (command instanceof GetPublicKeyCommand) {
          return { KeySpec: 'ECC_SECG_P256K1', PublicKey: spki() };
        }
        if (command instanceof SignCommand) {
          const digest = Buffer.from(command.input.Message!).toString('hex');
          const low = secp256k1.sign(digest, privateKey.slice(2));
          const s = signed++ % 2 === 0 ? secp256k1.CURVE.n - low.s : low.s;
          return { Signature: new secp256k1.Signature(low.r, s).toDERRawBytes() };
        }
        throw new Error('unexpected command');
      } finally {
        inFlight--;
      }
    },
  };
  return {
    client: client as unknown as KMSClient,
    inFlight: () => inFlight,
    mostInFlight: () => mostInFlight,
    openGate,
  };
}

const transfer = (nonce: number): SignableTransfer => ({
  type: 'eip1559',
  chainId: 1,
  nonce,
  to: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  value: 1n,
  gas: 21_000n,
  maxFeePerGas: parseGwei('30'),
  maxPriorityFeePerGas: parseGwei('1'),
});

describe('a wallet in KMS', () => {
  it('signs what the wallet itself would, high s or not, never more requests at once than its slots', async () => {
    const kms = fakeKms();
    const signer = kmsSigner({
      address: wallet.address,
      keyId: 'alias/hot-1',
      kms: kms.client,
      slots: signingSlots(3),
    });
    const nonces = Array.from({ length: 24 }, (_, i) => i);
    const signing = Promise.all(nonces.map((n) => signChecked(signer, transfer(n))));
    await waitFor(() => kms.inFlight() === 3, 'three requests in flight', 5000);
    // Held there, with 21 more waiting: no fourth goes out.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(kms.inFlight()).toBe(3);
    kms.openGate();
    const signed = await signing;
    // Deterministic signatures (RFC 6979) with s low: the same bytes as the key in memory.
    expect(signed).toEqual(
      await Promise.all(nonces.map((n) => wallet.signTransaction(transfer(n)))),
    );
    expect(kms.mostInFlight()).toBe(3);
  });

  it.each([
    ['DisabledException', ErrorName.signerRefused],
    ['AccessDeniedException', ErrorName.signerRefused],
    ['KMSInvalidStateException', ErrorName.signerRefused],
    ['ThrottlingException', ErrorName.signerUnavailable],
    ['KMSInternalException', ErrorName.signerUnavailable],
  ])('%s is %s', async (name, type) => {
    const kms = fakeKms(
      () =>
        new KMSServiceException({ name, $fault: 'client', $metadata: {}, message: `${name} here` }),
    );
    const signer = kmsSigner({
      address: wallet.address,
      keyId: 'alias/hot-1',
      kms: kms.client,
      slots: signingSlots(1),
    });
    const error = await signChecked(signer, transfer(0)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RelayerError);
    expect((error as RelayerError).name).toBe(type);
    expect((error as RelayerError).message).toContain('(kms:alias/hot-1)');
  });

  it('no connection at all is the signer unavailable', async () => {
    const kms = fakeKms(() =>
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    );
    const signer = kmsSigner({
      address: wallet.address,
      keyId: 'k',
      kms: kms.client,
      slots: signingSlots(1),
    });
    await expect(signChecked(signer, transfer(0))).rejects.toMatchObject({
      name: ErrorName.signerUnavailable,
    });
  });
});
