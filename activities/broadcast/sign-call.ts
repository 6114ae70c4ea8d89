import type { Chain } from '../../chain/chain';
import {
  CallRevertedError,
  NoExclusiveWalletError,
  NoFundedWalletError,
} from '../../domain/errors';
import { isDepositSweep } from '../../domain/custody';
import type { Intent } from '../../domain/intent';
import { paymentOf } from '../../domain/intent-payment';
import { chooseWallet } from '../../domain/wallet-choice';
import { laneFactsOf } from '../../operations/wallet-lanes';
import { walletLanes } from '../../store/wallet-lanes';
import { exclusiveWallets } from '../../store/wallet-pools';
import type { ActivityDependencies } from '../dependencies';
import { unlessCancelled } from '../liveness';
import { signAttempt } from '../transactions/sign-attempt';

/**
 * A contract call is sent only from a wallet no other tenant may use (chosen now among them
 * for an intent that named none; else NoExclusiveWallet, and the intent fails unsigned), and
 * only once the exact call, simulated from that wallet, does not revert (else CallReverted with
 * the decoded reason: it fails unsigned, its hold released).
 */
export async function signCall(
  deps: ActivityDependencies,
  chain: Chain,
  intent: Intent,
): Promise<Intent> {
  const { db } = deps;
  // A deposit sweep is the house's: only the treasury, which owns the factory, signs it.
  const own = isDepositSweep(intent)
    ? new Set(chain.treasury ? [chain.treasury.address] : [])
    : new Set(await exclusiveWallets(db.kysely, intent.tenantId, intent.chainId));
  if (intent.from !== null && !own.has(intent.from)) {
    throw new NoExclusiveWalletError(intent.tenantId, intent.chainId, intent.from);
  }
  const signers = [...chain.walletAddresses, ...(chain.treasury ? [chain.treasury.address] : [])];
  const signable = signers.filter((address) => own.has(address));
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
