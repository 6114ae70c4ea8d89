import type { KMSClient } from '@aws-sdk/client-kms';
import { kmsSigner } from '../chain/signers/kms-signer';
import { localSigner } from '../chain/signers/local-signer';
import { remoteSigner } from '../chain/signers/remote-signer';
import { signingSlots, type SigningSlots } from '../chain/signers/signing-slots';
import type { WalletSigner } from '../chain/signers/wallet-signer';
import { RelayerError, SignerRefusedError } from '../domain/errors';
import { ErrorName } from '../domain/error-catalogue';
import { signerLabel, type SignerSetting } from '../domain/wallet-signer-setting';
import { ConfigError, type RelayerConfig } from './config/load';
import { log } from '../domain/log';

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

/** Builds the signer of one external wallet; refuses a KMS key where no region is set. */
export type SignerFactory = (setting: SignerSetting) => WalletSigner;

/**
 * One KMS client and one set of signing slots for every KMS key (the quota is the account's, per
 * region); one set of slots per remote signer URL. One factory per process, shared by every chain
 * and by the wallets added at run time, so the bounds hold across all of them.
 */
export function signerFactory(config: SignerConfig): SignerFactory {
  let kms: { client: Promise<KMSClient>; slots: SigningSlots } | undefined;
  const remoteSlots = new Map<string, SigningSlots>();
  return (setting) => {
    if (setting.kind === 'remote') {
      const slots = remoteSlots.get(setting.url) ?? signingSlots(config.signerConcurrency);
      remoteSlots.set(setting.url, slots);
      const { address, url } = setting;
      return remoteSigner({ address, url, timeoutMs: config.signerTimeoutMs, slots });
    }
    if (config.awsRegion === undefined) {
      throw new SignerRefusedError(
        setting.address,
        signerLabel(setting),
        'AWS_REGION is not set on this worker',
      );
    }
    const awsRegion = config.awsRegion;
    kms ??= {
      // Loaded here, not at start: a worker without KMS wallets never loads the SDK.
      client: import('@aws-sdk/client-kms').then(
        ({ KMSClient }) =>
          new KMSClient({
            region: awsRegion,
            ...(config.kmsEndpoint && { endpoint: config.kmsEndpoint }),
            // Temporal's retry policy is the one retry layer.
            maxAttempts: 1,
            requestHandler: {
              connectionTimeout: config.signerTimeoutMs,
              requestTimeout: config.signerTimeoutMs,
            },
          }),
      ),
      slots: signingSlots(config.signerConcurrency),
    };
    const { address, keyId } = setting;
    return kmsSigner({ address, keyId, kms: kms.client, slots: kms.slots });
  };
}

/** The process's hot wallets from its settings: local keys first, then WALLET_SIGNERS in order. */
export function walletSigners(
  config: SignerConfig,
  signerFor: SignerFactory = signerFactory(config),
): WalletSigner[] {
  const local = [...config.hotWalletKeys, ...config.hotWalletKeysFile].map(localSigner);
  return [...local, ...config.walletSigners.map(signerFor)];
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
        if (error instanceof RelayerError && error.name !== ErrorName.signerUnavailable) {
          refusals.push(`WALLET_SIGNERS: ${error.message}`);
        } else {
          log.warn(`${(error as Error).message}; asked again at its first signing`);
        }
      }
    }),
  );
  if (refusals.length > 0)
    throw new ConfigError({ problems: refusals, heading: 'wallet signers refuse' });
}
