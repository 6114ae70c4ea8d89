import {
  parseTransaction,
  recoverTransactionAddress,
  type TransactionSerializableEIP1559,
  type TransactionSerializableLegacy,
  type TransactionSerialized,
} from 'viem';
import { toAccount, type LocalAccount } from 'viem/accounts';
import {
  RelayerError,
  SignerMismatchError,
  SignerUnavailableError,
  SignerRefusedError,
} from '../../domain/errors';
import { inSpan } from '../../domain/tracer';
import type { Hex } from '../../domain/transfer';

/**
 * One hot wallet and the key that signs for it: a viem account whose `signTransaction` reaches a
 * local key, a remote JSON-RPC signer or AWS KMS. The chain adapter only ever signs through
 * `signChecked`.
 */
export interface WalletSigner {
  readonly account: LocalAccount;
  /** Names the key in logs and errors ("local key", "kms:alias/hot-1", "remote:host:port"). */
  readonly keyLabel: string;
  /**
   * Asks the signer, before anything is signed, whether it holds the wallet's key (KMS: the key's
   * public key; a remote signer: its accounts). Throws SignerMismatch or SignerRefused when it
   * does not, SignerUnavailable when it cannot tell now. Absent for a key held in memory.
   */
  check?(): Promise<void>;
  /**
   * The key is in this process's memory and viem signs with it, for the address it derived from
   * that key: the bytes are the wallet's and what was asked by construction, so signChecked does
   * not parse and recover them (about four times the signing's CPU: docs/benchmark.md).
   */
  readonly inProcess?: true;
}

/** A signer that holds its key elsewhere, as a viem account that signs transactions only. */
export function signerOf(
  address: Hex,
  keyLabel: string,
  signTransaction: (transaction: SignableTransfer) => Promise<Hex>,
  check?: () => Promise<void>,
): WalletSigner {
  const refuse = () =>
    Promise.reject(new SignerRefusedError(address, keyLabel, 'it signs transactions only'));
  return {
    account: toAccount({
      address,
      signTransaction: (transaction) => signTransaction(transaction as SignableTransfer),
      signMessage: refuse,
      signTypedData: refuse,
    }),
    keyLabel,
    ...(check && { check }),
  };
}

/**
 * What the relayer signs: an EIP-1559 transaction (type 2), or a legacy one (type 0, `gasPrice`)
 * on a chain without EIP-1559.
 */
export type SignableTransfer =
  | (TransactionSerializableEIP1559 & { type: 'eip1559' })
  | (TransactionSerializableLegacy & { type: 'legacy' });

/** The fields a transfer's signature must cover exactly as asked, by its type. */
const checkedFields = {
  eip1559: ['chainId', 'nonce', 'to', 'value', 'gas', 'maxFeePerGas', 'maxPriorityFeePerGas'],
  legacy: ['chainId', 'nonce', 'to', 'value', 'gas', 'gasPrice'],
} as const;

/**
 * Signs `transaction` and, for a key held elsewhere, proves the bytes are what was asked before
 * anyone stores or sends them: the sender recovered from the signature is the wallet, and every
 * field is the one requested (a remote signer fills in or changes nothing). Errors other than the
 * signer's typed ones count as the signer being unavailable: the step retries and nothing was
 * stored.
 */
export async function signChecked(
  signer: WalletSigner,
  transaction: SignableTransfer,
): Promise<Hex> {
  const wallet = signer.account.address;
  let rawTx: Hex;
  try {
    rawTx = await inSpan(
      'sign transaction',
      {
        'relayer.signer': signer.keyLabel,
        'relayer.wallet': wallet,
        'relayer.nonce': transaction.nonce ?? -1,
      },
      () => signer.account.signTransaction(transaction),
    );
  } catch (error) {
    if (error instanceof RelayerError) throw error;
    throw new SignerUnavailableError(wallet, signer.keyLabel, error);
  }
  if (signer.inProcess) return rawTx;
  const serializedTransaction = rawTx as TransactionSerialized;
  let signed: Record<string, unknown>;
  let sender: Hex;
  try {
    signed = parseTransaction(serializedTransaction) as Record<string, unknown>;
    sender = await recoverTransactionAddress({ serializedTransaction });
  } catch (error) {
    throw new SignerMismatchError(
      wallet,
      signer.keyLabel,
      `its answer is not a signed transaction (${(error as Error).message.split('\n')[0]})`,
    );
  }
  if (sender.toLowerCase() !== wallet.toLowerCase()) {
    throw new SignerMismatchError(wallet, signer.keyLabel, `the signature recovers to ${sender}`);
  }
  // A zero (a cancel's value, a zero tip) is an empty field in the encoding: parsed as absent.
  const asSigned = (value: unknown) => String(value ?? 0).toLowerCase();
  const asked = transaction as Record<string, unknown>;
  const changed: string[] = checkedFields[transaction.type].filter(
    (field) => asSigned(signed[field]) !== asSigned(asked[field]),
  );
  if (signed.type !== transaction.type) changed.push('type');
  if ((signed.data ?? '0x') !== (transaction.data ?? '0x')) changed.push('data');
  if (changed.length > 0) {
    throw new SignerMismatchError(wallet, signer.keyLabel, `it changed ${changed.join(', ')}`);
  }
  return rawTx;
}
