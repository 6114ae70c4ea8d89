import { KMSClient } from '@aws-sdk/client-kms';
import { kmsSigner } from '../chain/signers/kms-signer';
import { localSigner } from '../chain/signers/local-signer';
import { remoteSigner } from '../chain/signers/remote-signer';
import { signingSlots, type SigningSlots } from '../chain/signers/signing-slots';
import type { WalletSigner } from '../chain/signers/wallet-signer';
import { ErrorType, RelayerError } from '../domain/errors';
import { ConfigError, type RelayerConfig } from './config';

type SignerConfig = Pick<
  RelayerConfig,
  | 'hotWalletKeys'
  | 'hotWalletKeysFile'
  | 'walletSigners'
  | 'awsRegion'
  | 'kmsEndpoint'
  | 'signerConcurrency'
  | 'signerTimeoutMs'
>;

/**
 * The process's hot wallets, each with its signer: local keys first, then WALLET_SIGNERS in order.
 * One KMS client and one set of signing slots for every KMS key (the quota is the account's, per
 * region); one set of slots per remote signer URL. Made once per process and shared by every
 * chain, so the bounds hold across chains.
 */
export function walletSigners(config: SignerConfig): WalletSigner[] {
  const local = [...config.hotWalletKeys, ...config.hotWalletKeysFile].map(localSigner);
  let kms: { client: KMSClient; slots: SigningSlots } | undefined;
  const remoteSlots = new Map<string, SigningSlots>();
  const slotsFor = (url: string) => {
    const slots = remoteSlots.get(url) ?? signingSlots(config.signerConcurrency);
    remoteSlots.set(url, slots);
    return slots;
  };
  const external = config.walletSigners.map((setting) => {
    if (setting.kind === 'remote') {
      return remoteSigner({
        address: setting.address,
        url: setting.url,
        timeoutMs: config.signerTimeoutMs,
        slots: slotsFor(setting.url),
      });
    }
    kms ??= {
      client: new KMSClient({
        region: config.awsRegion,
        ...(config.kmsEndpoint && { endpoint: config.kmsEndpoint }),
        // Temporal's retry policy is the one retry layer.
        maxAttempts: 1,
        requestHandler: {
          connectionTimeout: config.signerTimeoutMs,
          requestTimeout: config.signerTimeoutMs,
        },
      }),
      slots: signingSlots(config.signerConcurrency),
    };
    return kmsSigner({
      address: setting.address,
      keyId: setting.keyId,
      kms: kms.client,
      slots: kms.slots,
    });
  });
  return [...local, ...external];
}

/**
 * Before a worker takes work, each signer is asked whether it holds its wallet's key: one that
 * says no (another key, a disabled or missing key, an account it does not hold) stops the start
 * with every such wallet named; one that cannot be asked now is logged, and its answer comes at
 * its first signing (where the same checks run again).
 */
export async function checkSigners(signers: readonly WalletSigner[]): Promise<void> {
  const refusals: string[] = [];
  await Promise.all(
    signers.map(async (signer) => {
      try {
        await signer.check?.();
      } catch (error) {
        if (error instanceof RelayerError && error.name !== ErrorType.signerUnavailable) {
          refusals.push(`WALLET_SIGNERS: ${error.message}`);
        } else {
          console.warn(`${(error as Error).message}; asked again at its first signing`);
        }
      }
    }),
  );
  if (refusals.length > 0) throw new ConfigError(refusals, 'wallet signers refuse');
}
