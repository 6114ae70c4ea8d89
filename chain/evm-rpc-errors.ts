import { BaseError, HttpRequestError, TimeoutError } from 'viem';

/**
 * What an EVM node's refusal means and what the relayer does about it: one table, read top to
 * bottom, the first matching row wins. Nodes word the same refusal differently (geth, anvil,
 * Erigon, hosted providers), so each row matches every wording we know of.
 *
 * Actions:
 * - `retry`: nothing is wrong with the transaction; ask again later (Temporal's retry policy
 *   paces it; viem's fallback has already tried the other endpoints).
 * - `sent`: the node already has these exact bytes; treat as sent.
 * - `reconcile`: our nonce is used on-chain; look at which transaction used it before doing
 *   anything (ours: follow it; another's, settled: sign again at a fresh nonce).
 * - `replace`: the bytes can no longer get in as signed; sign a replacement at the same nonce with
 *   a better fee bid, within the caps.
 * - `fail`: the transfer can never go through as asked. Before signing the intent fails and its
 *   hold is released; once signed, the workflow sends it to review.
 * No single answer sends an intent to review by itself: the signed bytes are persisted, so each
 * answer has a safe automatic move. Review comes from time limits (a send not accepted within five
 * minutes, no confirmation within the confirm timeout).
 */
export const RpcErrorKind = {
  rateLimited: 'rate_limited',
  timeout: 'timeout',
  unreachable: 'unreachable',
  alreadyKnown: 'already_known',
  nonceTooLow: 'nonce_too_low',
  nonceTooHigh: 'nonce_too_high',
  replacementUnderpriced: 'replacement_underpriced',
  feeBelowBaseFee: 'fee_below_base_fee',
  insufficientFunds: 'insufficient_funds',
  executionReverted: 'execution_reverted',
  intrinsicGasTooLow: 'intrinsic_gas_too_low',
  unknown: 'unknown',
} as const;
export type RpcErrorKind = (typeof RpcErrorKind)[keyof typeof RpcErrorKind];

export type RpcErrorAction = 'retry' | 'sent' | 'reconcile' | 'replace' | 'fail';

/** The parts of an error the rows look at, gathered from the whole cause chain. */
export interface RpcErrorFacts {
  /** Every message and detail in the chain, lower case. */
  text: string;
  httpStatus?: number;
  rpcCodes: number[];
  timedOut: boolean;
}

interface RpcErrorRow {
  kind: RpcErrorKind;
  action: RpcErrorAction;
  matches(facts: RpcErrorFacts): boolean;
}

const says = (pattern: RegExp) => (facts: RpcErrorFacts) => pattern.test(facts.text);

export const rpcErrorTable: readonly RpcErrorRow[] = [
  {
    kind: RpcErrorKind.rateLimited,
    action: 'retry',
    matches: (facts) =>
      facts.httpStatus === 429 ||
      facts.rpcCodes.includes(-32005) ||
      /rate limit|too many requests|limit exceeded|exceeded .*capacity/.test(facts.text),
  },
  {
    kind: RpcErrorKind.timeout,
    action: 'retry',
    matches: (facts) => facts.timedOut || facts.httpStatus === 408 || facts.httpStatus === 504,
  },
  {
    kind: RpcErrorKind.alreadyKnown,
    action: 'sent',
    matches: says(/already known|already imported|known transaction|already in (the )?mempool/),
  },
  {
    kind: RpcErrorKind.nonceTooLow,
    action: 'reconcile',
    matches: says(/nonce too low|nonce has already been used|invalid nonce|oldnonce/),
  },
  {
    kind: RpcErrorKind.nonceTooHigh,
    action: 'retry',
    matches: says(/nonce too high|nonce gap/),
  },
  {
    kind: RpcErrorKind.replacementUnderpriced,
    action: 'replace',
    matches: says(/replacement (transaction )?underpriced|transaction underpriced/),
  },
  {
    kind: RpcErrorKind.feeBelowBaseFee,
    action: 'replace',
    matches: says(/(max fee per gas|fee cap) less than block base fee|feecap too low/),
  },
  {
    kind: RpcErrorKind.insufficientFunds,
    action: 'retry',
    matches: says(/insufficient funds/),
  },
  {
    kind: RpcErrorKind.executionReverted,
    action: 'fail',
    matches: (facts) => facts.rpcCodes.includes(3) || /execution reverted/.test(facts.text),
  },
  {
    kind: RpcErrorKind.intrinsicGasTooLow,
    action: 'fail',
    matches: says(/intrinsic gas too low/),
  },
  {
    kind: RpcErrorKind.unreachable,
    action: 'retry',
    matches: (facts) =>
      (facts.httpStatus !== undefined && facts.httpStatus >= 500) ||
      /fetch failed|econnrefused|econnreset|socket hang up|http request failed/.test(facts.text),
  },
  { kind: RpcErrorKind.unknown, action: 'retry', matches: () => true },
];

export function rpcErrorFacts(error: unknown): RpcErrorFacts {
  const texts: string[] = [];
  const rpcCodes: number[] = [];
  let httpStatus: number | undefined;
  let timedOut = false;
  for (let current: unknown = error, depth = 0; current && depth < 10; depth++) {
    if (current instanceof TimeoutError) timedOut = true;
    if (current instanceof HttpRequestError && current.status !== undefined) {
      httpStatus ??= current.status;
    }
    if (current instanceof BaseError) texts.push(current.shortMessage, current.details);
    if (current instanceof Error) texts.push(current.message);
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'number') rpcCodes.push(code);
    current = (current as { cause?: unknown }).cause;
  }
  return { text: texts.join(' | ').toLowerCase(), httpStatus, rpcCodes, timedOut };
}

export interface RpcErrorClass {
  kind: RpcErrorKind;
  action: RpcErrorAction;
}

export function classifyRpcError(error: unknown): RpcErrorClass {
  const facts = rpcErrorFacts(error);
  const row = rpcErrorTable.find((candidate) => candidate.matches(facts))!;
  return { kind: row.kind, action: row.action };
}
