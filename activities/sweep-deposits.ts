import { BrokenInvariantError } from '../domain/errors';
import { sweepCallData } from '../chain/deposit-addresses';
import type { Hex } from '../domain/transfer';
import { log } from '../domain/log';
import { newIntentId } from '../operations/new-id';
import { depositAddressesOnChain } from '../store/deposit-addresses';
import { insertDepositSweep, sweepableAddresses } from '../store/deposit-sweeps';
import type { ActivityDependencies } from './dependencies';
import { whileHeartbeating } from './liveness';

export interface SweepDepositsParameters {
  chainId: number;
}

export interface SweepDepositsResult {
  /** Sweeps started this round (intent ids). */
  started: string[];
}

type Deps = Pick<ActivityDependencies, 'db' | 'chains' | 'clock' | 'workflows' | 'failpoints'>;

/**
 * Empties the chain's deposit addresses that hold credited deposits into its treasury: one sweep
 * per address, none while one is under way. A sweep is the house's intent (domain/custody.ts) —
 * the treasury calls the factory, which deploys the address's forwarder if need be and moves the
 * deposits' tokens and all its native coin — through the payment's steps (permit, a hold of
 * nothing, sign, confirm), its gas the house's; no tenant's book changes. It is written with the
 * deposits it takes in one transaction, then its workflow started: a crash in between leaves it
 * `authorized`, for the orphan sweep to start. A sweep the factory would refuse (no code at the
 * factory, or simulated first and refused: its owner is not the treasury) is not written.
 */
export const sweepDeposits =
  (deps: Deps) =>
  ({ chainId }: SweepDepositsParameters): Promise<SweepDepositsResult> =>
    whileHeartbeating(async () => {
      const { db, chains, clock, workflows, failpoints } = deps;
      if (!workflows)
        throw new BrokenInvariantError({ rule: 'sweepDeposits is given no workflow starter' });
      const chain = chains.get(chainId);
      const factory = chain.depositFactory;
      const treasury = chain.treasury?.address;
      const started: string[] = [];
      if (!factory) return { started };
      const sweepable = await sweepableAddresses(db.kysely, chainId);
      if (sweepable.length === 0) return { started };
      if (!treasury) {
        log.warn(
          `deposits on chain ${chainId}: nothing swept, the chain has no treasury: name the factory's owner in TREASURY_WALLET (or the chains file's treasury)`,
        );
        return { started };
      }
      if (!(await chain.hasCode(factory))) {
        log.warn(
          `deposits on chain ${chainId}: nothing swept, no code at the factory ${factory}: deploy it (owned by the treasury) or correct DEPOSIT_FACTORY`,
        );
        return { started };
      }
      const addresses = await depositAddressesOnChain(db.kysely, chainId);
      for (const each of sweepable) {
        const salt = addresses.get(each.address.toLowerCase())!.salt as Hex;
        const now = clock.now();
        const callData = sweepCallData(salt, each.tokens, treasury);
        // A factory that would refuse the treasury (another owner) would fail every sweep
        // written: none is, and the round says why.
        const simulated = await chain.simulateCall(treasury, {
          to: factory,
          value: 0n,
          data: callData,
        });
        if (!simulated.ok) {
          log.warn(
            `deposits on chain ${chainId}: ${each.address} not swept, the factory ${factory} refuses the treasury's sweep (${simulated.why}): its owner must be the treasury ${treasury}`,
          );
          continue;
        }
        // Another round took a deposit first: nothing of this one was written.
        const sweep = await db.transaction((trx) =>
          insertDepositSweep(
            db,
            trx,
            newIntentId(now.getTime()),
            { chainId, treasury, factory, callData },
            each,
            now,
          ),
        );
        if (!sweep) continue;
        failpoints?.reach('after-deposit-sweep-admitted');
        await workflows.startIntent(sweep);
        started.push(sweep.id);
      }
      return { started };
    });
