import { parseEther } from 'viem/utils';
import type { ContractCallInput } from '../domain/contract-call';
import type { IntentPriority } from '../domain/intent-priority';
import type { CallerReferenceFlags } from './commands/caller-references';
import { decimalAmountProblem } from './decimal-amount';
import { badInput } from './exit-codes';

/** What `relayer submit` pays: a call (--call-data, or --abi with --arg), else an amount. */
export const paymentOfFlags = (flags: SubmitFlags) =>
  flags.callData !== undefined || flags.abi !== undefined ? callOf(flags) : amountOf(flags);

export interface SubmitFlags extends CallerReferenceFlags {
  chainId: number;
  from?: string;
  to: string;
  asset?: string;
  amount?: string;
  eth?: string;
  wei?: string;
  callData?: string;
  abi?: string;
  arg?: string[];
  idempotencyKey?: string;
  validUntil?: string;
  notBefore?: string;
  priority?: IntentPriority;
  wait?: boolean;
}

/**
 * A contract call as the API takes it: its bytes, or its signature and arguments (each one JSON
 * when it parses as an array, an object or a boolean, else the string as typed), and the value
 * it sends (--eth or --wei; none: 0).
 */
function callOf(flags: SubmitFlags): { call: ContractCallInput; value?: string } {
  if (flags.callData !== undefined && flags.abi !== undefined)
    throw badInput('give --call-data or --abi with --arg, one of them');
  if (flags.callData !== undefined && flags.arg !== undefined)
    throw badInput('--arg goes with --abi: --call-data is the whole call');
  if (flags.asset !== undefined || flags.amount !== undefined)
    throw badInput('a call sends the native coin: give its value with --eth or --wei');
  if (flags.eth !== undefined && flags.wei !== undefined)
    throw badInput('give the value once: --eth or --wei');
  const problem = flags.eth !== undefined && decimalAmountProblem(flags.eth, 18);
  if (problem) throw badInput(`--eth: ${problem}`);
  const value = flags.eth !== undefined ? parseEther(flags.eth).toString() : flags.wei;
  const call: ContractCallInput =
    flags.callData !== undefined
      ? { data: flags.callData }
      : { abi: flags.abi!, args: (flags.arg ?? []).map(argumentOf) };
  return { call, ...(value !== undefined && { value }) };
}

function argumentOf(typed: string): unknown {
  if (!/^\s*(\[|\{|true$|false$)/.test(typed)) return typed;
  try {
    return JSON.parse(typed) as unknown;
  } catch {
    throw badInput(`--arg ${typed}: starts like JSON but does not parse`);
  }
}

/**
 * The amount as the API takes it: base units, or a decimal the API converts by the asset's
 * decimals.
 */
function amountOf(flags: SubmitFlags): { amount: string } | { decimalAmount: string } {
  const given = [flags.amount, flags.eth, flags.wei].filter((flag) => flag !== undefined);
  if (given.length !== 1) {
    throw badInput('give the amount once: --amount <decimal>, --eth <ether> or --wei <base units>');
  }
  if (flags.eth !== undefined && flags.asset !== undefined && flags.asset !== 'native') {
    throw badInput(`--eth is for the native coin: give --amount for ${flags.asset}`);
  }
  if (flags.wei !== undefined) return { amount: flags.wei };
  const decimal = flags.amount ?? flags.eth!;
  const flag = flags.amount !== undefined ? '--amount' : '--eth';
  // A token's own decimals are the API's to check: it knows the asset.
  const problem = decimalAmountProblem(decimal, flag === '--eth' ? 18 : Infinity);
  if (problem) throw badInput(`${flag}: ${problem}`);
  if (flag === '--eth') return { amount: parseEther(decimal).toString() };
  return { decimalAmount: decimal };
}
