import { isNative } from '../domain/asset';
import {
  CallRevertedError,
  IntentClosedError,
  NoExclusiveWalletError,
  NoFundedWalletError,
  SendPacedError,
  TokenTransferRefusedError,
  WalletBlockedError,
  WalletRetiredError,
  WalletTokenShortError,
} from '../domain/errors';
import { IntentStatus, mayBeOnChain, signedTransactionOf, type Intent } from '../domain/intent';
import { paymentOf } from '../domain/intent-payment';
import { chooseWallet } from '../domain/wallet-choice';
import type { Chain } from '../chain/chain';
import { walletLanes } from '../store/wallet-lanes';
import type { Hex } from '../domain/transfer';
import type { ActivityDependencies } from './dependencies';
import { getIntent, transitionIntent } from '../store/intents';
import { exclusiveWallets, retiredWallets } from '../store/wallet-pools';
import { blockedLanes, laneFactsOf, lanesOf, signableLaneFacts } from '../operations/wallet-lanes';
import { unlessCancelled, whileHeartbeating } from './liveness';
import { sendSigned } from './transactions/send-signed';
import { signAttempt } from './transactions/sign-attempt';
import type { BatchItemParameters } from './batch/batch-item-parameters';
import { passWalletTurn } from './wallet-turn';
import { ReasonCode } from '../domain/reason-codes';
import { isTopUp } from '../domain/custody';
import { enforcePaymentPolicy } from '../operations/payment-policy';

export interface BroadcastParameters {
  intentId: string;
  /** The intent's permit: given back here once the send is done, if this process holds it. */
  permitId?: string;
  /** A batch item signing in its wallet's turn: the next item is told once this one is signed. */
  batchItem?: BatchItemParameters;
}

export interface BroadcastResult {
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

  /**
   * A pinned wallet whose lane waits on an operator signs nothing new: the intent says why (the
   * API shows its reason) and the step retries.
   */
  async function refuseBehindReview(intent: Intent, blockedBy: string | undefined): Promise<void> {
    if (intent.from === null || blockedBy === undefined) return;
    const blocked = new WalletBlockedError(intent.chainId, intent.from, blockedBy);
    // Written once per blocking intent: the same words again would only bump the version.
    if (intent.reasonCode !== ReasonCode.walletBlocked || intent.reason !== blocked.message) {
      await transitionIntent(
        db.kysely,
        intent,
        {
          status: intent.status,
          reason: { code: ReasonCode.walletBlocked, text: blocked.message },
        },
        clock.now(),
      );
    }
    throw blocked;
  }

  async function sign(intent: Intent): Promise<Intent> {
    const chain = chains.get(intent.chainId);
    // The first signing is the last moment a policy changed since admission can still stop the
    // payment (a retry or a replacement of bytes already signed is not checked again).
    if (!isTopUp(intent)) {
      await enforcePaymentPolicy(db, db.kysely, intent, 'signing', clock.now());
      failpoints?.reach('after-policy-check');
    }
    // Fees, gas, balances and nonces need RPC calls, so they are read before any lock is taken.
    if (intent.from !== null) {
      // Retired since it was admitted: it signs nothing new.
      if ((await retiredWallets(db.kysely, intent.chainId)).has(intent.from)) {
        throw new WalletRetiredError(intent.chainId, intent.from);
      }
      const blockedBy = await unlessCancelled(blockedLanes(db, chain));
      await refuseBehindReview(intent, blockedBy.get(intent.from));
    }
    if (intent.callData) return signCall(chain, intent);
    if (!isNative(intent.asset)) return signTokenPayment(chain, intent, intent.asset);
    // An intent that named no wallet is planned with the first (gas only differs by recipient).
    const from = intent.from ?? chain.walletAddresses[0]!;
    const [plan, lanes] = await unlessCancelled(
      Promise.all([
        chain.planTransfer(paymentOf(intent, from)),
        intent.from === null ? signableLaneFacts(db, chain, intent.tenantId) : undefined,
      ]),
    );
    return signAttempt(deps, intent, plan, { kind: 'next', ...(lanes && { lanes }) });
  }

  /**
   * A token transfer is checked before anything is signed, from the wallet that will sign it
   * (chosen now for an intent that named none): the wallet holds the amount on top of its
   * transfers in flight (else WalletTokenShort, retried: a top-up or a confirmation frees it),
   * and the exact call, simulated, neither reverts nor returns false (else TokenTransferRefused:
   * the intent fails unsigned, its hold released).
   */
  async function signTokenPayment(chain: Chain, intent: Intent, token: Hex): Promise<Intent> {
    const lanes =
      intent.from === null
        ? await unlessCancelled(signableLaneFacts(db, chain, intent.tenantId, token))
        : undefined;
    const lane = lanes
      ? chooseWallet(await walletLanes(db.kysely, intent.chainId, lanes), 0n, intent.amount)
      : (await unlessCancelled(lanesOf(db, chain, [intent.from!], token)))[0];
    if (!lane) throw new NoFundedWalletError(intent.chainId, 0n, token);
    const { address: from } = lane;
    const holds = lane.token!.balance - lane.token!.committed;
    if (holds < intent.amount) {
      throw new WalletTokenShortError(intent.chainId, token, from, holds, intent.amount);
    }
    const payment = paymentOf(intent, from);
    const simulated = await unlessCancelled(chain.simulatePayment(from, payment));
    if (!simulated.ok)
      throw new TokenTransferRefusedError(intent.chainId, token, from, simulated.why);
    const plan = await unlessCancelled(chain.planTransfer(payment));
    return signAttempt(deps, intent, plan, {
      kind: 'next',
      ...(lanes && { lanes, preferred: from }),
    });
  }

  /**
   * A contract call is sent only from a wallet no other tenant may use (chosen now among them
   * for an intent that named none; else NoExclusiveWallet, and the intent fails unsigned), and
   * only once the exact call, simulated from that wallet, does not revert (else CallReverted with
   * the decoded reason: it fails unsigned, its hold released).
   */
  async function signCall(chain: Chain, intent: Intent): Promise<Intent> {
    const own = new Set(await exclusiveWallets(db.kysely, intent.tenantId, intent.chainId));
    if (intent.from !== null && !own.has(intent.from)) {
      throw new NoExclusiveWalletError(intent.tenantId, intent.chainId, intent.from);
    }
    const signable = chain.walletAddresses.filter((address) => own.has(address));
    if (signable.length === 0) throw new NoExclusiveWalletError(intent.tenantId, intent.chainId);
    const lanes =
      intent.from === null ? await unlessCancelled(laneFactsOf(db, chain, signable)) : undefined;
    const lane = lanes
      ? chooseWallet(await walletLanes(db.kysely, intent.chainId, lanes), intent.amount, 0n)
      : { address: intent.from! };
    if (!lane) throw new NoFundedWalletError(intent.chainId, intent.amount);
    const payment = paymentOf(intent, lane.address);
    const simulated = await unlessCancelled(chain.simulateCall(lane.address, payment));
    if (!simulated.ok)
      throw new CallRevertedError(intent.chainId, intent.to, lane.address, simulated.why);
    const plan = await unlessCancelled(chain.planTransfer(payment));
    return signAttempt(deps, intent, plan, {
      kind: 'next',
      ...(lanes && { lanes, preferred: lane.address }),
    });
  }

  return ({ intentId, permitId, batchItem }: BroadcastParameters): Promise<BroadcastResult> =>
    whileHeartbeating(async () => {
      let intent = await getIntent(db.kysely, intentId);
      if (intent.status === IntentStatus.held) {
        intent = await sign(intent);
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
        const outcome = await sendSigned(chain, throttle, signed);
        if (typeof outcome === 'object') throw new SendPacedError(outcome.pacedMs);
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
