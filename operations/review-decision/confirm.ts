import { isNative } from '../../domain/asset';
import { ReviewRefusedError } from '../../domain/errors';
import { IntentStatus, type Intent } from '../../domain/intent';
import { signingWallet } from '../../domain/signed-intent';
import { paymentOf } from '../../domain/intent-payment';
import type { Hex } from '../../domain/transfer';
import { intentClaimingTransaction } from '../../store/transaction-attempts';
import type { ReviewCheckDependencies, DecidedBy } from './dependencies';
import { intentInReview, deliveredOf } from './checks';
import { resolve } from './apply';

export async function resolveAsConfirmed(
  deps: ReviewCheckDependencies,
  by: DecidedBy,
  intentId: string,
  txHash: Hex,
  note?: string,
): Promise<Intent> {
  const intent = await intentInReview(deps, intentId);
  const chain = deps.chains.get(intent.chainId);
  const transfer = await chain.lookupTransfer(txHash);
  const refuse = (problem: ConstructorParameters<typeof ReviewRefusedError>[1], why: string) =>
    new ReviewRefusedError(intentId, problem, why);
  if (!transfer) throw refuse('transaction_not_found', `the node does not know ${txHash}`);
  const payment = paymentOf(intent, signingWallet(intent));
  if (
    transfer.from !== intent.from ||
    transfer.to !== payment.to ||
    transfer.value !== payment.value ||
    transfer.data !== (payment.data ?? '0x') ||
    transfer.chainId !== intent.chainId
  ) {
    throw refuse(
      'transaction_mismatch',
      isNative(intent.asset)
        ? `${txHash} sends ${transfer.value} wei from ${transfer.from} to ${transfer.to} on chain ` +
            `${transfer.chainId}; the intent is ${intent.amount} wei from ${intent.from} to ${intent.to}`
        : `${txHash} is not the transfer of ${intent.amount} of token ${intent.asset} from ` +
            `${intent.from} to ${intent.to} on chain ${intent.chainId} (it calls ${transfer.to} with ` +
            `${transfer.data.slice(0, 10)}…, value ${transfer.value})`,
    );
  }
  const seen = transfer.observation;
  if (seen.state !== 'mined' || seen.confirmations < chain.confirmations) {
    throw refuse(
      'transaction_not_mined',
      `${txHash} has ${seen.state === 'mined' ? seen.confirmations : 0} of ` +
        `${chain.confirmations} confirmations: resolve it once it has them`,
    );
  }
  if (!seen.succeeded) {
    throw refuse('transaction_reverted', `${txHash} reverted: no value moved; resolve as failed`);
  }
  const delivered = deliveredOf(intent, seen);
  if (delivered === 0n) {
    throw refuse(
      'token_moved_nothing',
      `${txHash} logged no transfer of the token from ${intent.from} to ${intent.to}: nothing was paid; resolve as failed`,
    );
  }
  const claimed = await intentClaimingTransaction(deps.database.kysely, txHash, intentId);
  if (claimed) {
    throw refuse('transaction_taken', `${txHash} belongs to intent ${claimed}`);
  }
  return resolve(deps, by, intentId, 'resolve_confirmed', IntentStatus.confirmed, {
    patch: {
      txHash,
      blockNumber: seen.blockNumber,
      reason: null,
      feePaid: seen.gasPaid,
      ...(delivered !== undefined && delivered !== intent.amount && { deliveredAmount: delivered }),
    },
    hold: 'captured',
    gasPaid: seen.gasPaid,
    detail: {
      txHash,
      blockNumber: seen.blockNumber.toString(),
      previousTxHash: intent.txHash,
      note,
    },
  });
}
