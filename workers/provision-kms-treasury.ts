import {
  CreateAliasCommand,
  CreateKeyCommand,
  DescribeKeyCommand,
  GetPublicKeyCommand,
  KMSClient,
  NotFoundException,
} from '@aws-sdk/client-kms';
import { renameSync, writeFileSync } from 'node:fs';
import { createTestClient, http, parseEther, publicActions, type Hex } from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import { z } from 'zod';
import { publicKeyOfSpki } from '../chain/signers/kms-signature';
import { decimal, list, url } from './config/parsers';

/**
 * The compose stack's treasury: a key in its local KMS (github.com/nsmithuk/local-kms), made once
 * under an alias — local-kms cannot be seeded with a secp256k1 key (its seed parser knows the NIST
 * curves only), so the key, and with it the treasury's address, exists only once the stack runs.
 * This one-off step makes the key (or finds it by its alias), funds its address on the stack's
 * development chains, and writes the two settings the workers read before they start:
 * TREASURY_WALLET and the key in WALLET_SIGNERS. In production there is no such step: the
 * operator names a KMS key and its address in those two settings.
 */

/** A secp256k1 signing key under `alias`, made if the alias names none yet; its address. */
export async function ensureKmsSigningKey(
  kms: KMSClient,
  alias: string,
): Promise<{ address: Hex; created: boolean }> {
  let created = false;
  try {
    await kms.send(new DescribeKeyCommand({ KeyId: alias }));
  } catch (error) {
    if (!(error instanceof NotFoundException)) throw error;
    const key = await kms.send(
      new CreateKeyCommand({
        KeySpec: 'ECC_SECG_P256K1',
        KeyUsage: 'SIGN_VERIFY',
        Description: 'payment relayer treasury',
      }),
    );
    await kms.send(
      new CreateAliasCommand({ AliasName: alias, TargetKeyId: key.KeyMetadata!.KeyId! }),
    );
    created = true;
  }
  const { PublicKey } = await kms.send(new GetPublicKeyCommand({ KeyId: alias }));
  const publicKey = publicKeyOfSpki(PublicKey!);
  if (typeof publicKey !== 'string') {
    throw new Error(`KMS key ${alias} is on ${publicKey.curve} curve, not secp256k1`);
  }
  return { address: publicKeyToAddress(publicKey), created };
}

/** Gives `address` `wei` on a development node (anvil) where it holds nothing; true if it did. */
export async function fundOnDevelopmentChain(
  rpcUrl: string,
  address: Hex,
  wei: bigint,
): Promise<boolean> {
  const node = createTestClient({ mode: 'anvil', transport: http(rpcUrl) }).extend(publicActions);
  if ((await node.getBalance({ address })) > 0n) return false;
  await node.setBalance({ address, value: wei });
  return true;
}

/**
 * The treasury's settings as a shell reads them (`. file`), the key added to any WALLET_SIGNERS
 * the stack was given.
 */
export const treasuryShellSettings = (address: Hex, alias: string): string =>
  [
    `TREASURY_WALLET=${address}`,
    `WALLET_SIGNERS="\${WALLET_SIGNERS:+$WALLET_SIGNERS,}${address}=kms:${alias}"`,
    'export TREASURY_WALLET WALLET_SIGNERS',
    '',
  ].join('\n');

const environment = z.object({
  KMS_ENDPOINT: url,
  AWS_REGION: z.string().min(1, { error: 'must name the local KMS region' }),
  TREASURY_KMS_ALIAS: z
    .string()
    .regex(/^alias\/[\w/-]+$/, { error: 'must be a KMS alias, e.g. alias/relayer-treasury' }),
  TREASURY_FUND_RPC_URLS: list(url),
  TREASURY_FUND_ETH: decimal(parseEther, 'ether'),
  TREASURY_SETTINGS_FILE: z.string().min(1, { error: 'must be the file the workers read' }),
});

async function main(): Promise<void> {
  const parsed = environment.safeParse(process.env);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const unset = issue.code === 'invalid_type' && issue.input === undefined;
      console.error(`${issue.path.join('.')}: ${unset ? 'is not set' : issue.message}`);
    }
    process.exit(2);
  }
  const settings = parsed.data;
  const kms = new KMSClient({ endpoint: settings.KMS_ENDPOINT, region: settings.AWS_REGION });
  const { address, created } = await ensureKmsSigningKey(kms, settings.TREASURY_KMS_ALIAS);
  console.log(
    `treasury ${address}: KMS key ${settings.TREASURY_KMS_ALIAS} ${created ? 'made now' : 'found'}`,
  );
  for (const url of settings.TREASURY_FUND_RPC_URLS) {
    const funded = await fundOnDevelopmentChain(url, address, settings.TREASURY_FUND_ETH);
    console.log(`treasury on ${url}: ${funded ? 'funded' : 'already holds ether'}`);
  }
  const file = settings.TREASURY_SETTINGS_FILE;
  writeFileSync(`${file}.new`, treasuryShellSettings(address, settings.TREASURY_KMS_ALIAS));
  renameSync(`${file}.new`, file);
  console.log(`treasury settings written to ${file}`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    // Most often the local KMS or a node is not answering yet: compose runs this step again.
    console.error(
      `treasury-key: ${error instanceof Error ? error.message : String(error)} — check that ` +
        'the KMS at KMS_ENDPOINT and the nodes of TREASURY_FUND_RPC_URLS answer; the stack ' +
        'retries this step (restart: on-failure) and its workers wait for it',
    );
    process.exit(1);
  });
}
