import { keccak256 } from 'viem';
import type { SignedTransfer, TransferPlan } from '../../domain/transfer';
import { signChecked } from '../signers/wallet-signer';
import type {
  SignerMismatchError,
  SignerRefusedError,
  SignerUnavailableError,
} from '../../domain/errors';
import type { EvmContext } from './context';

export type SignTransferParameters = { plan: TransferPlan; nonce: number };
export type SignTransferReturnType = SignedTransfer;
/** The signer unreachable (retryable), refusing, or answering with other than was asked. */
export type SignTransferErrorType =
  SignerUnavailableError | SignerRefusedError | SignerMismatchError;

/** Signs `plan` at `nonce` with its wallet's signer, as type 2, or type 0 on a legacy chain. */
export async function signTransfer(
  { chainId, gasPricing, signerFor }: EvmContext,
  { plan, nonce }: SignTransferParameters,
): Promise<SignTransferReturnType> {
  const fields = {
    chainId,
    nonce,
    to: plan.to,
    value: plan.value,
    gas: plan.gas,
    ...(plan.data && { data: plan.data }),
  };
  const rawTx = await signChecked(
    signerFor(plan.from),
    gasPricing === 'legacy'
      ? { ...fields, type: 'legacy', gasPrice: plan.maxFeePerGas }
      : {
          ...fields,
          type: 'eip1559',
          maxFeePerGas: plan.maxFeePerGas,
          maxPriorityFeePerGas: plan.maxPriorityFeePerGas,
        },
  );
  return { rawTx, txHash: keccak256(rawTx) };
}
