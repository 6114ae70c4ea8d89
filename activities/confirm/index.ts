import { IntentClosedError } from '../../domain/errors';
import { ReasonCode } from '../../domain/reason-codes';
import { IntentStatus, type Intent } from '../../domain/intent';
import { signingWallet } from '../../domain/signed-intent';
import type { Chain } from '../../chain/chain';
import { ageMs, type ActivityDependencies } from '../dependencies';
import type { IntentStepParameters } from '../mark-settling';
import { getIntent } from '../../store/intents';
import { listAttempts, type TransactionAttempt } from '../../store/transaction-attempts';
import { unlessCancelled, whileHeartbeating } from '../liveness';
import { decideConfirmMove, unminedLookGapMs, type ConfirmLook } from './move';
import { pending, type ConfirmResult, type EndState } from './result';
import { pendingTransactionMoves } from './pending-moves';
import { sayIfDelayed } from './delayed';
import { finishMined, type Mined } from './finish';
import { noteReceipt } from './note-receipt';

export type { ConfirmResult } from './result';

/**
 * One look at an intent's transactions on the chain, and the one move it calls for (decided by
 * `decideConfirmMove`, see move.ts; carried out here). Waiting for blocks happens on a
 * workflow timer between looks, not in a pool slot; a look reads the blocks the process watches
 * (chain.observe), and asks the node itself only when the decision needs it.
 */
export const confirm = (deps: ActivityDependencies) => {
  const { db, chains, clock } = deps;
  const moves = pendingTransactionMoves(deps);
  return ({ intentId }: IntentStepParameters): Promise<ConfirmResult> =>
    whileHeartbeating(async () => {
      const intent = await getIntent(db.kysely, intentId);
      // Ended by an earlier try: the state its status and reason recorded.
      if (endedByLook.has(intent.status) && intent.blockNumber !== null) {
        return endedAnswer(intent, clock);
      }
      const attempts = await listAttempts(db.kysely, intentId);
      if (intent.status !== IntentStatus.confirming || attempts.length === 0) {
        throw new IntentClosedError(intentId, intent.status);
      }
      const chain = chains.get(intent.chainId);
      const look = await firstLook(chain, intent, attempts, clock.now().getTime());
      return carryOutMoves(deps, moves, { chain, intent, attempts, look });
    });
};

/** What a look is about: the intent, its transactions, its chain, and what was seen of them. */
interface Looking {
  chain: Chain;
  intent: Intent;
  attempts: readonly TransactionAttempt[];
  look: ConfirmLook;
}

/** Each attempt as the watched blocks show it, and the head's base fee. */
async function firstLook(
  chain: Chain,
  intent: Intent,
  attempts: readonly TransactionAttempt[],
  now: number,
): Promise<ConfirmLook> {
  const look: ConfirmLook = {
    now,
    confirmations: chain.confirmations,
    stuckAfterMs: chain.stuckAfterMs,
    askNodeAfterMs: chain.askNodeAfterMs,
    notedBlock: intent.blockNumber,
    baseFeePerGas: 0n,
    attempts: [],
  };
  for (const attempt of attempts) {
    const seen = await unlessCancelled(chain.observe(attempt.txHash, attempt.createdAt));
    const { nonce, maxFeePerGas } = attempt;
    look.attempts.push({ nonce, maxFeePerGas, signedAt: attempt.createdAt.getTime(), seen });
  }
  // The head the observations just read (shared: no read of its own).
  look.baseFeePerGas = (await unlessCancelled(chain.blocksSince())).baseFeePerGas;
  return look;
}

/** Decides and carries out moves until one ends the look: a result, or a wait for the next. */
async function carryOutMoves(
  deps: ActivityDependencies,
  moves: ReturnType<typeof pendingTransactionMoves>,
  looking: Looking,
): Promise<ConfirmResult> {
  const { chain, intent, attempts, look } = looking;
  const latest = attempts.at(-1)!;
  const unmined = (result: Promise<ConfirmResult> | ConfirmResult) =>
    slowedWhileUnmined(deps, looking, result);
  let reorgNoted = false;
  for (;;) {
    const { move, reorged } = decideConfirmMove(look);
    if (reorged && !reorgNoted) {
      await noteReceipt(deps, intent, undefined);
      reorgNoted = true;
    }
    switch (move.move) {
      case 'finish': {
        const seen = look.attempts[move.attempt]!.seen as Mined;
        return finishMined(deps, intent, attempts, attempts[move.attempt]!, seen);
      }
      case 'note-receipt': {
        const attempt = attempts[move.attempt]!;
        await noteReceipt(deps, intent, attempt, look.attempts[move.attempt]!.seen as Mined);
        return pending(chain, move.confirmations, undefined, attempt.txHash);
      }
      case 'wait':
        return unmined(pending(chain));
      case 'ask-node':
        look.attempts.at(-1)!.seen = await unlessCancelled(chain.observeAtNode(latest.txHash));
        continue;
      case 'read-nonces':
        look.nonces = {
          mined: await chain.minedNonce(signingWallet(intent)),
          settled: await chain.settledNonce(signingWallet(intent)),
        };
        continue;
      case 'recheck-attempts':
        for (const [index, attempt] of attempts.entries()) {
          look.attempts[index]!.seen = await unlessCancelled(chain.observeAtNode(attempt.txHash));
        }
        look.rechecked = true;
        continue;
      case 'repair-line':
        return unmined(moves.repairLine(chain, intent, attempts));
      case 'unstick':
        return unmined(moves.whilePending(chain, intent, attempts));
      case 'outbid':
        return unmined(moves.outbid(chain, intent, attempts));
      case 'resend':
        return unmined(moves.resend(chain, intent, attempts));
      case 'reassign':
        return unmined(moves.reassign(chain, intent, attempts));
    }
  }
}

/**
 * Looks at a payment not mined slow down as it ages (its history stays short). Its age runs from
 * its latest transaction that is not a fee bump: a cancel or a re-sign starts anew.
 */
async function slowedWhileUnmined(
  deps: ActivityDependencies,
  { chain, intent, attempts, look }: Looking,
  result: Promise<ConfirmResult> | ConfirmResult,
): Promise<ConfirmResult> {
  const looked = await result;
  if (looked.state !== 'pending') return looked;
  const since = [...attempts].reverse().find((a) => a.cause !== 'fee_bump') ?? attempts.at(-1)!;
  const sinceSignedMs = look.now - since.createdAt.getTime();
  const retryAfterMs = Math.max(
    looked.retryAfterMs,
    unminedLookGapMs(sinceSignedMs, chain.nextLookInMs()),
  );
  const delayed = await sayIfDelayed(deps, chain, intent, attempts, retryAfterMs);
  return { ...looked, retryAfterMs, ...(delayed && { delayed }) };
}

/** The answer for an intent a look already ended. */
function endedAnswer(intent: Intent, clock: ActivityDependencies['clock']): ConfirmResult {
  return {
    state: endStateOf(intent),
    blockNumber: intent.blockNumber!.toString(),
    ageMs: ageMs(intent, clock),
    ...(intent.txHash && { txHash: intent.txHash }),
    reason: intent.reason,
    reasonCode: intent.reasonCode,
    asset: intent.asset,
  };
}

/** Statuses a look that found a transaction mined deep enough leaves an intent in. */
const endedByLook: ReadonlySet<IntentStatus> = new Set([
  IntentStatus.confirmed,
  IntentStatus.failed,
  IntentStatus.needsReview,
]);

/** The end state an intent ended by a look records in its status and reason. */
function endStateOf(intent: Intent): EndState {
  if (intent.status === IntentStatus.confirmed) return 'confirmed';
  if (intent.status === IntentStatus.needsReview) return 'mismatch';
  if (intent.reasonCode === ReasonCode.cancelledOnChain) return 'cancelled';
  if (intent.reasonCode === ReasonCode.tokenMovedNothing) return 'moved-nothing';
  return 'reverted';
}
