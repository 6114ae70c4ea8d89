import type { Client } from '@temporalio/client';
import type { Database } from '../store/database';
import type { Intent } from '../domain/intent';
import { parseNewIntent, type IntentBody, type NewIntent } from '../domain/intent-request';
import type { AdmissionLimits } from '../operations/admission';
import { admitIntent, type AdmitOptions } from '../operations/admit-intent';
import { startIntentOf } from './workflow-starts';
import type { IntentTimings } from '../domain/intent-timings';
import type { ChainRegistry } from '../chain/chain';
import { refuseCallWithoutCode } from './call-targets';
import { InvalidIntentError, UnknownChainError } from '../domain/errors';
import { intentOfBody } from './assets';

export interface SubmitDependencies {
  database: Database;
  client: Client;
  taskQueue: string;
  clock?: () => Date;
  /**
   * Tenant and backlog limits. The API always applies them; without them every valid intent is
   * admitted (trusted callers that pace themselves: the demo, the tests, the benchmark).
   */
  admission?: AdmissionLimits;
  /** This process runs the workers too: a new workflow's first task can start here at once. */
  eagerStart?: boolean;
  /** The send window and confirmation timeout new intents start with (the process's settings). */
  timings?: IntentTimings;
  /** Where a contract call's target is looked at (the API's): without, calls are not checked. */
  chains?: ChainRegistry;
}

export interface SubmittedIntent {
  intent: Intent;
  workflowId: string;
  /** False when this exact intent had been submitted before: nothing new was written or started. */
  created: boolean;
}

export type SubmitOptions = AdmitOptions;

/** `submitParsedIntent` for a request not yet checked. */
export const submitIntent = async (
  deps: SubmitDependencies,
  request: unknown,
  options: SubmitOptions = {},
): Promise<SubmittedIntent> => submitParsedIntent(deps, parseNewIntent(request), options);

/**
 * Records a valid request as `authorized` (admitIntent) and starts its workflow. Submitting the
 * same intent again (same id, or same Idempotency-Key and body) returns the stored one and never
 * runs its workflow a second time; an intent admitted before a crash gets its workflow started
 * by the retry, or else by resumeOrphanedIntents.
 */
export async function submitParsedIntent(
  deps: SubmitDependencies,
  request: NewIntent,
  options: SubmitOptions = {},
): Promise<SubmittedIntent> {
  const { chains } = deps;
  if (chains) {
    // Named as a chain this relayer does not serve, before the wallets or books it lacks there.
    if (!chains.chainIds.includes(request.chainId)) {
      throw new UnknownChainError(request.chainId, chains.chainIds);
    }
    refuseCeilingBelowFloor(chains, request);
    await refuseCallWithoutCode({ ...deps, chains }, request.tenantId, request);
  }
  const { intent, created } = await admitIntent(
    deps.database,
    request,
    options,
    deps.admission,
    deps.clock ?? (() => new Date()),
  );
  const workflowId = await startIntentOf(deps, intent, { eager: deps.eagerStart });
  return { intent, workflowId, created };
}

/**
 * An API body submitted for `tenantId`: what it pays read in the asset's units (a decimal amount
 * of a registered token), then admitted and started as `submitParsedIntent` does.
 */
export async function submitIntentBody(
  deps: SubmitDependencies,
  tenantId: string,
  body: IntentBody,
  options: SubmitOptions = {},
): Promise<SubmittedIntent> {
  const request = await intentOfBody(deps.database, body);
  return submitParsedIntent(deps, { ...request, tenantId }, options);
}

/** A payment's own fee ceiling below what its chain ever charges could never be mined. */
function refuseCeilingBelowFloor(chains: ChainRegistry, request: NewIntent): void {
  const floor = chains.get(request.chainId).baseFeeFloorPerGas;
  if (request.maxFeePerGas === undefined || request.maxFeePerGas >= floor) return;
  throw new InvalidIntentError([
    {
      field: 'maxFeePerGas',
      message:
        `maxFeePerGas ${request.maxFeePerGas} wei is below chain ${request.chainId}'s base-fee ` +
        `floor of ${floor} wei per gas: nothing bidding it could be mined`,
    },
  ]);
}
