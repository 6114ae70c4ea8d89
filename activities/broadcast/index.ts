import { DeadlinePassedError, IntentClosedError, SendPacedError } from '../../domain/errors';
import { IntentStatus, mayBeOnChain } from '../../domain/intent';
import { signedTransactionOf } from '../../domain/signed-intent';
import { pastValidUntil } from '../../domain/intent-deadlines';
import type { Hex } from '../../domain/transfer';
import { getIntent, transitionIntent } from '../../store/intents';
import { currentTakesNonceBack, listAttempts } from '../../store/transaction-attempts';
import type { BatchItemParameters } from '../batch/batch-item-parameters';
import type { ActivityDependencies } from '../dependencies';
import { whileHeartbeating } from '../liveness';
import { sendSigned } from '../transactions/send-signed';
import { passWalletTurn } from '../wallet-turn';
import { signHeld } from './sign';

export interface BroadcastStepParameters {
  intentId: string;
  /** The intent's permit: given back here once the send is done, if this process holds it. */
  permitId?: string;
  /** A batch item signing in its wallet's turn: the next item is told once this one is signed. */
  batchItem?: BatchItemParameters;
}

export interface BroadcastStepResult {
  status: IntentStatus;
  txHash: Hex;
  nonce: number;
  /** The sending wallet (chosen at signing when the request named none). */
  from?: Hex;
  /** The permit was given back here (it was held by this process): no release step needed. */
  permitReleased?: boolean;
  /** When a look at the receipt can first find it deep enough (the chain's block time). */
  firstLookAfterMs?: number;
}

/**
 * held → signed → confirming. Signs first and persists the raw transaction (attempt 1), its hash
 * and its nonce in one transaction, then sends the bytes. Every retry sends the *same* bytes, so
 * whatever happened to an earlier try, at most one transaction can land for the intent. Whatever
 * the node answers short of an RPC failure, the intent is then `confirming`: the confirm step
 * looks at the chain and replaces, re-sends or re-signs from there. The permit covers the send, so
 * it is given back here at its end when this process holds it (mostly: the workflow's task and
 * its activity ran here), saving the workflow a release step.
 */
export const broadcast = (deps: ActivityDependencies) => {
  const { db, chains, clock, throttle, failpoints } = deps;
  return ({
    intentId,
    permitId,
    batchItem,
  }: BroadcastStepParameters): Promise<BroadcastStepResult> =>
    whileHeartbeating(async () => {
      let intent = await getIntent(db.kysely, intentId);
      // Before the reads a signing needs: a step retried past the deadline (RPC down, a
      // blocked wallet) ends there rather than at the send window.
      if (intent.status === IntentStatus.held && pastValidUntil(intent, clock.now())) {
        throw new DeadlinePassedError(intentId, intent.validUntil!);
      }
      if (intent.status === IntentStatus.held) {
        intent = await signHeld(deps, intent);
        failpoints?.reach('after-sign');
      }
      const chain = chains.get(intent.chainId);
      const signed = signedTransactionOf(intent);
      if (!signed || !mayBeSent(intent.status)) {
        throw new IntentClosedError(intentId, intent.status);
      }
      const { txHash, nonce } = signed;
      if (intent.status === IntentStatus.signed) {
        // Before the send: the next item signs meanwhile, its nonce queued behind this one.
        if (batchItem) {
          await passWalletTurn(deps, batchItem);
          failpoints?.reach('after-turn-passed');
        }
        // Past the deadline the payment's bytes (perhaps sent before a crash) are not sent
        // again, a cancel's are: the confirm step follows whatever the chain has.
        if (
          !pastValidUntil(intent, clock.now()) ||
          currentTakesNonceBack(await listAttempts(db.kysely, intentId))
        ) {
          const outcome = await sendSigned(chain, throttle, signed);
          if (typeof outcome === 'object') throw new SendPacedError(outcome.pacedMs);
        }
        intent = await transitionIntent(
          db.kysely,
          intent,
          { status: IntentStatus.confirming },
          clock.now(),
        );
      }
      const firstLookAfterMs = chain.firstLookInMs();
      const permitReleased = permitId !== undefined && throttle.release(permitId);
      if (permitReleased) failpoints?.reach('after-release');
      return {
        status: intent.status,
        txHash,
        nonce,
        ...(intent.from !== null && { from: intent.from }),
        ...(permitReleased && { permitReleased }),
        ...(firstLookAfterMs > 0 && { firstLookAfterMs }),
      };
    });
};

/**
 * The signed bytes are (or were) on their way: they may be on-chain, or the intent already ended
 * confirmed (a broadcast run again after that has nothing to close: it answers as sent).
 */
const mayBeSent = (status: IntentStatus): boolean =>
  mayBeOnChain(status) || status === IntentStatus.confirmed;
