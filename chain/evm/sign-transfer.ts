import { keccak256 } from 'viem';
import type { SignedTransfer, TransferPlan } from '../../domain/transfer';
import { signChecked } from '../signers/wallet-signer';
import type { EvmContext } from './context';

/** Signs `plan` at `nonce` with its wallet's signer, as type 2, or type 0 on a legacy chain. */
export async function signTransfer(
  { chainId, gasPricing, signerFor }: EvmContext,
  plan: TransferPlan,
  nonce: number,
): Promise<SignedTransfer> {
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
