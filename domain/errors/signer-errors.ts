import { RelayerError } from './relayer-error';
import { ErrorName } from '../error-catalogue';

// A wallet's signer (a key elsewhere: KMS, a remote signer) unavailable, refusing, or not holding
// the wallet's key.

/**
 * Who holds a wallet's key, as errors and logs name it: a key id or a signer's host, never a
 * secret.
 */
interface SignerDetails {
  wallet: string;
  signer: string;
}

/** The signer could not be reached or asked to slow down: the signing step retries. */
export class SignerUnavailableError extends RelayerError<SignerDetails> {
  constructor(wallet: string, signer: string, cause: unknown) {
    super(
      ErrorName.signerUnavailable,
      `the signer of ${wallet} (${signer}) did not answer: ${describeCause(cause)}`,
      { wallet, signer },
      { cause },
    );
  }
}

/**
 * The signer answered and will not sign (access denied, key disabled or missing, wrong key type):
 * nothing was signed, and retrying cannot change that before an operator does.
 */
export class SignerRefusedError extends RelayerError<SignerDetails> {
  constructor(wallet: string, signer: string, problem: string, cause?: unknown) {
    super(
      ErrorName.signerRefused,
      `the signer of ${wallet} (${signer}) refuses to sign: ${problem}`,
      { wallet, signer },
      { cause },
    );
  }
}

/**
 * What the signer signed is not what was asked: another sender (the key is not the wallet's) or
 * other fields. Nothing of it is stored or sent.
 */
export class SignerMismatchError extends RelayerError<SignerDetails & { problem: string }> {
  constructor(wallet: string, signer: string, problem: string) {
    super(
      ErrorName.signerMismatch,
      `the signer of ${wallet} (${signer}) does not sign for it as asked: ${problem}; nothing was stored or sent: check which key that signer uses for this wallet (WALLET_SIGNERS, wallets add)`,
      { wallet, signer, problem },
    );
  }
}

const describeCause = (cause: unknown): string =>
  cause instanceof Error ? `${cause.name}: ${cause.message.split('\n')[0]}` : String(cause);
