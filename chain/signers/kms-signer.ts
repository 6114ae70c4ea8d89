import type { KMSClient } from '@aws-sdk/client-kms';
import { keccak256, serializeTransaction } from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import {
  RelayerError,
  SignerMismatchError,
  SignerRefusedError,
  SignerUnavailableError,
} from '../../domain/errors';
import type { Hex } from '../../domain/transfer';
import { signerLabel } from '../../domain/wallet-signer-setting';
import { ethereumSignature, publicKeyOfSpki } from './kms-signature';
import type { SigningSlots } from './signing-slots';
import { signerOf, type SignableTransfer, type WalletSigner } from './wallet-signer';

export interface KmsSignerSettings {
  /** The wallet the key is said to hold: checked against the key's public key before signing. */
  address: Hex;
  /** A key id, key ARN, alias name (`alias/…`) or alias ARN. */
  keyId: string;
  /** A promise where the client is made on first use: the SDK loads only where KMS signs. */
  kms: KMSClient | Promise<KMSClient>;
  slots: SigningSlots;
}

/** The SDK's commands, loaded with the first KMS call of the process. */
const kmsCommands = () => import('@aws-sdk/client-kms');

/** The key spec that signs for Ethereum; any other is refused before signing. */
const secp256k1KeySpec = 'ECC_SECG_P256K1';

/**
 * KMS errors a retry cannot fix: the caller may not use the key, or the key cannot sign (gone,
 * disabled, pending deletion, not a signing key). Anything else (throttling, KMS's own failures,
 * no connection) is retried by the step.
 */
const refusals = new Set([
  'AccessDeniedException',
  'DisabledException',
  'IncorrectKeyException',
  'InvalidKeyUsageException',
  'KMSInvalidStateException',
  'NotFoundException',
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'ValidationException',
]);

/**
 * A wallet whose key lives in AWS KMS: the transaction's hash is signed with `Sign`
 * (`MessageType=DIGEST`, ECDSA_SHA_256 over our keccak digest), the DER answer turned into r, s
 * (low s) and the recovery id that yields the key's public key (read once with `GetPublicKey`).
 * The public key must be the wallet's before anything is signed.
 */
export function kmsSigner({ address, keyId, kms, slots }: KmsSignerSettings): WalletSigner {
  const keyLabel = signerLabel({ address, kind: 'kms', keyId });
  const failure = (error: unknown) => kmsFailure(error, address, keyLabel);
  let publicKey: Promise<Hex> | undefined;

  async function readPublicKey(): Promise<Hex> {
    const { GetPublicKeyCommand } = await kmsCommands();
    const answer = await slots(async () =>
      (await kms).send(new GetPublicKeyCommand({ KeyId: keyId })),
    );
    if (answer.KeySpec !== secp256k1KeySpec || !answer.PublicKey) {
      throw new SignerRefusedError(
        address,
        keyLabel,
        `the key is ${answer.KeySpec ?? 'of no key spec'}, not ${secp256k1KeySpec}`,
      );
    }
    const key = publicKeyOfSpki(answer.PublicKey);
    if (typeof key !== 'string') {
      throw new SignerRefusedError(
        address,
        keyLabel,
        `its key is on ${key.curve} curve, not secp256k1`,
      );
    }
    const keyAddress = publicKeyToAddress(key);
    if (keyAddress.toLowerCase() !== address.toLowerCase()) {
      throw new SignerMismatchError(address, keyLabel, `the key's address is ${keyAddress}`);
    }
    return key;
  }

  /** Read once per process; a failed read is tried again by the next signing. */
  function keyOfWallet(): Promise<Hex> {
    publicKey ??= readPublicKey().catch((error: unknown) => {
      publicKey = undefined;
      throw failure(error);
    });
    return publicKey;
  }

  async function signTransaction(transaction: SignableTransfer): Promise<Hex> {
    const key = await keyOfWallet();
    const digest = keccak256(serializeTransaction(transaction));
    let der: Uint8Array | undefined;
    try {
      const { SignCommand } = await kmsCommands();
      const answer = await slots(async () =>
        (await kms).send(
          new SignCommand({
            KeyId: keyId,
            Message: Buffer.from(digest.slice(2), 'hex'),
            MessageType: 'DIGEST',
            SigningAlgorithm: 'ECDSA_SHA_256',
          }),
        ),
      );
      der = answer.Signature;
    } catch (error) {
      throw failure(error);
    }
    const signature = ethereumSignature(der!, digest, key);
    if (!signature) {
      throw new SignerMismatchError(
        address,
        keyLabel,
        'the signature does not verify against the key: neither recovery id fits',
      );
    }
    return serializeTransaction(transaction, signature);
  }

  return signerOf(address, keyLabel, signTransaction, async () => {
    await keyOfWallet();
  });
}

function kmsFailure(error: unknown, wallet: Hex, keyLabel: string): Error {
  if (error instanceof RelayerError) return error;
  // A KMS service exception (it carries `$fault`) of a kind no retry fixes.
  if (error instanceof Error && '$fault' in error && refusals.has(error.name)) {
    return new SignerRefusedError(wallet, keyLabel, `${error.name}: ${error.message}`, error);
  }
  return new SignerUnavailableError(wallet, keyLabel, error);
}
