import {
  BaseError,
  createWalletClient,
  formatTransactionRequest,
  http,
  HttpRequestError,
  numberToHex,
  RpcRequestError,
} from 'viem';
import {
  SignerMismatchError,
  SignerRefusedError,
  SignerUnavailableError,
} from '../../domain/errors';
import type { Hex } from '../../domain/transfer';
import { signerLabel } from '../../domain/wallet-signer-setting';
import type { SigningSlots } from './signing-slots';
import { signerOf, type SignableTransfer, type WalletSigner } from './wallet-signer';

export interface RemoteSignerSettings {
  /** The wallet the signer holds the key of. */
  address: Hex;
  /** Its JSON-RPC endpoint (Web3Signer's eth1 mode, or any node that signs for its accounts). */
  url: string;
  timeoutMs: number;
  slots: SigningSlots;
}

/**
 * A wallet whose key a remote JSON-RPC signer holds: each transaction goes out as
 * `eth_signTransaction` with every field given (nonce, gas, fees, chain id, type), so the signer
 * fills in nothing; the signed bytes come back and are checked before they are stored.
 */
export function remoteSigner({
  address,
  url,
  timeoutMs,
  slots,
}: RemoteSignerSettings): WalletSigner {
  // The host only: a URL's path or credentials may carry a secret.
  const keyLabel = signerLabel({ address, kind: 'remote', url });
  // Retries are Temporal's: the transport makes each request once.
  const client = createWalletClient({
    transport: http(url, { retryCount: 0, timeout: timeoutMs }),
  });
  const signTransaction = async (transaction: SignableTransfer): Promise<Hex> => {
    const request = {
      ...formatTransactionRequest({ ...transaction, from: address }),
      chainId: numberToHex(transaction.chainId!),
    } as const;
    try {
      return await slots(() =>
        client.request({ method: 'eth_signTransaction', params: [request] }, { retryCount: 0 }),
      );
    } catch (error) {
      throw remoteFailure(error, address, keyLabel);
    }
  };
  async function check(): Promise<void> {
    let accounts: readonly Hex[];
    try {
      accounts = await slots(() => client.request({ method: 'eth_accounts' }, { retryCount: 0 }));
    } catch (error) {
      throw remoteFailure(error, address, keyLabel);
    }
    if (!accounts.some((account) => account.toLowerCase() === address.toLowerCase())) {
      throw new SignerMismatchError(
        address,
        keyLabel,
        'the signer does not list it in eth_accounts',
      );
    }
  }

  return signerOf(address, keyLabel, signTransaction, check);
}

/**
 * The signer answering with a JSON-RPC error, or refusing the caller (401, 403, 404), will not
 * sign this: final. No answer, a timeout, 408, 429 or 5xx: it may answer the next try.
 */
function remoteFailure(error: unknown, wallet: Hex, keyLabel: string): Error {
  const cause =
    error instanceof BaseError
      ? error.walk((e) => e instanceof RpcRequestError || e instanceof HttpRequestError)
      : undefined;
  if (cause instanceof RpcRequestError && cause.code !== limitExceededCode) {
    return new SignerRefusedError(wallet, keyLabel, cause.details, error);
  }
  const status = cause instanceof HttpRequestError ? cause.status : undefined;
  if (status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429) {
    return new SignerRefusedError(wallet, keyLabel, `HTTP ${status}`, error);
  }
  return new SignerUnavailableError(wallet, keyLabel, error);
}

/** JSON-RPC's "limit exceeded": the signer asks to slow down, not a refusal. */
const limitExceededCode = -32005;
