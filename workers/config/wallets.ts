import { z } from 'zod';
import { keysFileSetting, walletSignersSetting } from '../signer-settings';
import { parseEther } from 'viem';
import { address, decimal, integer, list, url, optional, privateKey, setting } from './parsers';

/** The hot wallets and where their keys are: memory, a file, AWS KMS, a remote signer. */
export const walletsSettings = {
  hotWalletKeys: setting({
    env: 'HOT_WALLET_KEYS',
    fallback: '',
    doc: 'Comma-separated private keys of wallets signed for in this process (workers sign; the API process needs none). A worker needs at least one wallet: here, in HOT_WALLET_KEYS_FILE or in WALLET_SIGNERS',
    secret: true,
    parse: optional(list(privateKey)).transform((keys) => keys ?? []),
  }),
  hotWalletKeysFile: setting({
    env: 'HOT_WALLET_KEYS_FILE',
    fallback: '',
    doc: 'A file of private keys, one per line (a mounted secret), beside or instead of HOT_WALLET_KEYS',
    parse: optional(keysFileSetting).transform((keys) => keys ?? []),
  }),
  walletSigners: setting({
    env: 'WALLET_SIGNERS',
    fallback: '',
    doc: 'Wallets whose keys live outside the process, comma-separated: `<address>=kms:<key id, ARN or alias>` (AWS KMS, an ECC_SECG_P256K1 key) or `<address>=remote:<http(s) URL>` (a JSON-RPC signer answering `eth_signTransaction`, such as Web3Signer)',
    // A signer URL may carry credentials: never echoed.
    secret: true,
    parse: optional(walletSignersSetting).transform((signers) => signers ?? []),
  }),
  treasuryWallet: setting({
    env: 'TREASURY_WALLET',
    fallback: '',
    doc: "The wallet that tops up every chain's hot wallets (one of this process's wallets, any signer kind; never chosen for a payment); a chains file names one per chain (`treasury`). Unset: no top-ups, low wallets are only told",
    parse: optional(address),
  }),
  topUpTarget: setting({
    env: 'TOP_UP_TARGET_ETH',
    fallback: '1',
    doc: "A hot wallet found below LOW_BALANCE_ETH is topped up from the treasury to this balance, in ether (a chain's `topUpTargetEth`)",
    parse: decimal(parseEther, 'ether'),
  }),
  treasuryLowBalance: setting({
    env: 'TREASURY_LOW_BALANCE_ETH',
    fallback: '1',
    doc: "A treasury below this, in ether, is told to operator webhooks (`treasury.low_balance`) and warned of in /readyz (a chain's `treasuryLowBalanceEth`)",
    parse: decimal(parseEther, 'ether'),
  }),
  awsRegion: setting({
    env: 'AWS_REGION',
    fallback: '',
    doc: "AWS KMS's region, required when WALLET_SIGNERS names a KMS key; credentials come from the AWS SDK's default chain (environment, profile, task or instance role), never from this table",
    parse: optional(
      z
        .string()
        .regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, { error: 'must be an AWS region such as eu-west-2' }),
    ),
  }),
  kmsEndpoint: setting({
    env: 'KMS_ENDPOINT',
    fallback: '',
    doc: "Another KMS endpoint (a VPC endpoint; local-kms in tests); unset: the region's own",
    parse: optional(url),
  }),
  signerConcurrency: setting({
    env: 'SIGNER_CONCURRENCY',
    fallback: '8',
    doc: "Signing requests in flight per signer and process (one for KMS's account and region, one per remote signer URL): KMS has request quotas",
    parse: integer(1, 1000),
  }),
  signerTimeoutMs: setting({
    env: 'SIGNER_TIMEOUT_MS',
    fallback: '5000',
    doc: "Timeout of one request to KMS or a remote signer (a signing holds its wallet's nonce until it ends)",
    parse: integer(100, 25_000),
  }),
};
