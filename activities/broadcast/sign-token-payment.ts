import type { Chain } from '../../chain/chain';
import {
  NoFundedWalletError,
  TokenTransferRefusedError,
  WalletTokenShortError,
} from '../../domain/errors';
import type { Intent } from '../../domain/intent';
import { paymentOf } from '../../domain/intent-payment';
import type { Hex } from '../../domain/transfer';
import { chooseWallet } from '../../domain/wallet-choice';
import { lanesOf, signableLaneFacts } from '../../operations/wallet-lanes';
import { tokenNaming } from '../../store/assets';
import { walletLanes } from '../../store/wallet-lanes';
import type { ActivityDependencies } from '../dependencies';
import { unlessCancelled } from '../liveness';
import { signAttempt } from '../transactions/sign-attempt';

/**
 * A token transfer is checked before anything is signed, from the wallet that will sign it
 * (chosen now for an intent that named none): the wallet holds the amount on top of its
 * transfers in flight (else WalletTokenShort, retried: a top-up or a confirmation frees it),
 * and the exact call, simulated, neither reverts nor returns false (else TokenTransferRefused:
 * the intent fails unsigned, its hold released).
 */
export async function signTokenPayment(
  deps: ActivityDependencies,
  chain: Chain,
  intent: Intent,
  token: Hex,
): Promise<Intent> {
  const { db } = deps;
  const lanes =
    intent.from === null
      ? await unlessCancelled(signableLaneFacts(db, chain, intent.tenantId, token))
      : undefined;
  const lane = lanes
    ? chooseWallet(await walletLanes(db.kysely, intent.chainId, lanes), 0n, intent.amount)
    : (await unlessCancelled(lanesOf(db, chain, [intent.from!], token)))[0];
  if (!lane) {
    const naming = await tokenNaming(db.kysely, intent.chainId, token);
    throw new NoFundedWalletError(intent.chainId, 0n, { ...naming, amount: intent.amount });
  }
  const { address: from } = lane;
  const holds = lane.token!.balance - lane.token!.committed;
  if (holds < intent.amount) {
    const naming = await tokenNaming(db.kysely, intent.chainId, token);
    throw new WalletTokenShortError(intent.chainId, naming, from, holds, intent.amount);
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
