import type { Intent } from '../domain/intent';
import { signingWallet } from '../domain/signed-intent';
import { listAttempts } from '../store/transaction-attempts';
import type { ReviewCheckDependencies } from './review-decision/dependencies';

/** What the chain settled at an intent's nonce, which nothing sent there any more can change. */
export interface NonceSettled {
  problem: 'mined' | 'nonce_used';
  why: string;
}

/**
 * Asks the node whether one of the intent's transactions is mined, or its nonce was used by
 * another: a cancel or a speed-up at the nonce is refused then, since neither could be mined.
 */
export async function nonceSettled(
  deps: ReviewCheckDependencies,
  intent: Intent,
  nonce: number,
): Promise<NonceSettled | undefined> {
  const chain = deps.chains.get(intent.chainId);
  for (const attempt of await listAttempts(deps.database.kysely, intent.id)) {
    const seen = await chain.observeAtNode(attempt.txHash);
    if (seen.state === 'mined') {
      return {
        problem: 'mined',
        why: `its transaction ${attempt.txHash} was mined in block ${seen.blockNumber}`,
      };
    }
  }
  if ((await chain.minedNonce(signingWallet(intent))) > nonce) {
    return {
      problem: 'nonce_used',
      why: `nonce ${nonce} of ${signingWallet(intent)} was used by another transaction`,
    };
  }
  return undefined;
}
