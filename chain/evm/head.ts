import type { EvmContext, RpcErrorType } from './context';

/** A look never comes back sooner: each costs a workflow task and an activity. */
const minLookMs = 50;

/** A readiness check reads the watched head, refreshed at most this often. */
const readinessMaxAgeMs = 10_000;

export type BlockNumberParameters = { maxAgeMs?: number };
export type BlockNumberReturnType = bigint;
export type BlockNumberErrorType = RpcErrorType;

/** The watched head's number, at most `maxAgeMs` old (a look's age by default). */
export async function blockNumber(
  { rpc, watcher, lookMaxAgeMs }: EvmContext,
  { maxAgeMs = lookMaxAgeMs }: BlockNumberParameters = {},
): Promise<BlockNumberReturnType> {
  return (await rpc(watcher.currentHead(maxAgeMs))).block.number;
}

export type FinalizedBlockReturnType = bigint;
export type FinalizedBlockErrorType = RpcErrorType;

/** The chain's final block: the node's `finalized` tag, or the watched head less a depth. */
export async function finalizedBlock(context: EvmContext): Promise<FinalizedBlockReturnType> {
  const finality = context.settings.finality ?? 'finalized';
  if (finality === 'finalized') {
    return (await context.rpc(context.client.getBlock({ blockTag: 'finalized' }))).number;
  }
  // The watched head, shared with every look: at most a look's age behind, so never early.
  const head = await blockNumber(context);
  return head > BigInt(finality) ? head - BigInt(finality) : 0n;
}

/** When to look at a transaction again: a moment after the next block is due. */
export function nextLookInMs({ settings, watcher }: EvmContext): number {
  if (settings.blockTimeMs === 0) return settings.pollIntervalMs;
  // A moment after the next block is due, for it to be produced and read.
  return Math.max(minLookMs, watcher.nextBlockDueAt() - Date.now() + settings.blockTimeMs / 10);
}

export type ReadyReturnType = { headAgeMs?: number };
export type ReadyErrorType = RpcErrorType;

/** Whether the chain answers: a head read (at most readinessMaxAgeMs old) and its age. */
export async function ready(context: EvmContext): Promise<ReadyReturnType> {
  await blockNumber(context, { maxAgeMs: readinessMaxAgeMs });
  return { headAgeMs: context.watcher.headAgeMs() };
}
