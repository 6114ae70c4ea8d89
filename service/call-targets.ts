import type { Hex } from 'viem';
import type { ChainRegistry } from '../chain/chain';
import { selectorOf } from '../domain/contract-call';
import { InvalidIntentError } from '../domain/errors';
import type { NewIntent } from '../domain/intent-request';
import type { Database } from '../store/database';
import { findAllowedCall } from '../store/allowed-calls';

/** Whether a call's target holds code on its chain now; null where the chain is not served. */
export async function callTargetHasCode(
  chains: ChainRegistry,
  chainId: number,
  target: string,
): Promise<boolean | null> {
  if (!chains.chainIds.includes(chainId)) return null;
  return chains.get(chainId).hasCode(target as Hex);
}

/**
 * Refuses a call to an address without code, which would run nothing and leave its value there
 * (a mistyped address, or the contract on another chain), unless the allowed call lets such a
 * target by (a contract deployed later). A call the policy does not allow is left to the policy.
 */
export async function refuseCallWithoutCode(
  { database, chains }: { database: Database; chains: ChainRegistry },
  tenantId: string,
  request: NewIntent,
): Promise<void> {
  if (request.callData === undefined) return;
  const allowed = await findAllowedCall(database.kysely, tenantId, {
    chainId: request.chainId,
    contract: request.to,
    selector: selectorOf(request.callData),
  });
  if (!allowed || allowed.allowNoCode) return;
  if ((await callTargetHasCode(chains, request.chainId, request.to)) !== false) return;
  throw new InvalidIntentError([
    {
      field: 'to',
      message:
        `${request.to} has no code on chain ${request.chainId}: a call to it runs nothing and ` +
        'leaves its value there (a mistyped address, or the contract is on another chain); for a ' +
        'contract deployed later, allow the call with allowNoCode (relayer calls allow --allow-no-code)',
    },
  ]);
}
