import {
  encodeFunctionData,
  getAddress,
  isAddress,
  isHex,
  parseAbiItem,
  toFunctionSelector,
} from 'viem/utils';
import type { AbiFunction, AbiParameter, Hex } from 'viem';
import { z } from 'zod';

/**
 * A contract call an intent may carry instead of a transfer: its call data, given as bytes or
 * encoded here from an ABI fragment, a function and its arguments (JSON: integers as strings of
 * digits, addresses and bytes as hex). What the policy allows is the contract and the function's
 * selector, the call data's first four bytes.
 */
export const selectorOf = (data: Hex): Hex => data.slice(0, 10).toLowerCase() as Hex;

/** Call data as the API and the programmatic submit take it: bytes with a selector. */
export const callDataSchema = z
  .string({ error: 'call.data must be a 0x-prefixed hex string' })
  .regex(/^0x([0-9a-fA-F]{2}){4,}$/, {
    error: 'call.data must be 0x and whole bytes, at least the 4-byte function selector',
  })
  .transform((data) => data.toLowerCase() as Hex);

const abiItem = z.record(z.string(), z.unknown());

export const contractCallSchema = z
  .strictObject({
    data: callDataSchema.optional(),
    abi: z
      .union([z.string(), abiItem, z.array(abiItem)], {
        error:
          'call.abi must be a function signature ("deposit(bytes32)", "function deposit(bytes32 ref) payable") or JSON ABI items',
      })
      .optional(),
    function: z.string({ error: 'call.function must be the function name' }).optional(),
    args: z.array(z.unknown(), { error: 'call.args must be an array' }).optional(),
  })
  .transform((call, ctx): { data: Hex } => {
    const refuse = (path: (string | number)[], message: string) => {
      ctx.issues.push({ code: 'custom', message, input: call, path });
      return z.NEVER;
    };
    if ((call.data === undefined) === (call.abi === undefined)) {
      return refuse([], 'give call.data, or call.abi with call.args: exactly one of them');
    }
    if (call.data !== undefined) {
      if (call.function !== undefined || call.args !== undefined)
        return refuse(['data'], 'call.data is the whole call: function and args go with abi');
      return { data: call.data };
    }
    const found = functionIn(call.abi!, call.function, call.args?.length ?? 0);
    if (typeof found === 'string') return refuse(['abi'], found);
    const args = call.args ?? [];
    if (args.length !== found.inputs.length) {
      return refuse(
        ['args'],
        `${found.name} takes ${found.inputs.length} argument(s) (${found.inputs.map((p) => p.type).join(', ')}), ${args.length} given`,
      );
    }
    const coerced: unknown[] = [];
    for (const [index, input] of found.inputs.entries()) {
      const value = argumentOf(input, args[index]);
      if (value instanceof ArgumentProblem)
        return refuse(['args', index, ...value.path], value.message);
      coerced.push(value);
    }
    try {
      return {
        data: encodeFunctionData({ abi: [found], functionName: found.name, args: coerced }),
      };
    } catch (error) {
      return refuse(['args'], viemWords(error));
    }
  });
export type ContractCallInput = z.input<typeof contractCallSchema>;

/** The one function of `abi` that is meant: by name, then by its number of arguments. */
function functionIn(
  abi: string | Record<string, unknown> | Record<string, unknown>[],
  name: string | undefined,
  argumentCount: number,
): AbiFunction | string {
  let items: unknown[];
  if (typeof abi === 'string') {
    try {
      // A bare signature, as `calls allow --function` takes it, is a function's.
      const bare = /^\s*[A-Za-z_$][\w$]*\s*\(/.test(abi);
      items = [parseAbiItem(bare ? `function ${abi.trim()}` : abi)];
    } catch (error) {
      const said = viemWords(error);
      return `"${abi}" does not parse as a function signature: ${said}`;
    }
  } else {
    items = [abi].flat();
  }
  const functions = items.filter(isAbiFunction);
  if (functions.length === 0)
    return 'no function in call.abi (a JSON item needs type "function", a name and inputs)';
  const named = name === undefined ? functions : functions.filter((each) => each.name === name);
  if (named.length === 0) return `call.abi has no function named "${name}"`;
  const fitting = named.length > 1 ? named.filter((f) => f.inputs.length === argumentCount) : named;
  if (fitting.length !== 1) {
    return name === undefined
      ? 'call.abi holds several functions: name one in call.function'
      : `"${name}" is overloaded with ${argumentCount} argument(s): give only the one fragment`;
  }
  return fitting[0]!;
}

const isAbiFunction = (item: unknown): item is AbiFunction => {
  const candidate = item as Partial<AbiFunction> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    candidate.type === 'function' &&
    typeof candidate.name === 'string' &&
    Array.isArray(candidate.inputs) &&
    candidate.inputs.every((input) => typeof (input as { type?: unknown }).type === 'string')
  );
};

class ArgumentProblem {
  constructor(
    readonly message: string,
    readonly path: (string | number)[] = [],
  ) {}
}

/** A JSON value as viem encodes `parameter`'s type; integers come as strings (JSON loses them). */
function argumentOf(parameter: AbiParameter, value: unknown): unknown {
  const { type } = parameter;
  const array = /^(.*)\[(\d*)\]$/.exec(type);
  if (array) {
    if (!Array.isArray(value)) return new ArgumentProblem(`a ${type} must be an array`);
    if (array[2] !== '' && value.length !== Number(array[2]))
      return new ArgumentProblem(`a ${type} holds ${array[2]} items, ${value.length} given`);
    const items: unknown[] = [];
    for (const [index, item] of value.entries()) {
      const coerced = argumentOf({ ...parameter, type: array[1]! }, item);
      if (coerced instanceof ArgumentProblem)
        return new ArgumentProblem(coerced.message, [index, ...coerced.path]);
      items.push(coerced);
    }
    return items;
  }
  if (type === 'tuple') {
    const components = (parameter as { components?: readonly AbiParameter[] }).components ?? [];
    const byPosition = Array.isArray(value);
    if (typeof value !== 'object' || value === null)
      return new ArgumentProblem('a tuple must be an array or an object of its fields');
    const fields: unknown[] = [];
    for (const [index, component] of components.entries()) {
      const key = byPosition ? index : (component.name ?? String(index));
      const coerced = argumentOf(component, (value as Record<string | number, unknown>)[key]);
      if (coerced instanceof ArgumentProblem)
        return new ArgumentProblem(coerced.message, [key, ...coerced.path]);
      fields.push(coerced);
    }
    return fields;
  }
  if (/^u?int\d*$/.test(type)) {
    if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
    if (typeof value === 'string' && /^-?(0|[1-9][0-9]*)$/.test(value)) return BigInt(value);
    return new ArgumentProblem(`a ${type} must be a whole number, as a string of digits`);
  }
  if (type === 'address') {
    if (typeof value === 'string' && isAddress(value, { strict: true })) return getAddress(value);
    return new ArgumentProblem(
      'an address must be 0x and 40 hex digits (checksummed if mixed-case)',
    );
  }
  if (type === 'bool') {
    return typeof value === 'boolean' ? value : new ArgumentProblem('a bool must be true or false');
  }
  if (/^bytes\d*$/.test(type)) {
    return typeof value === 'string' && isHex(value)
      ? value
      : new ArgumentProblem(`a ${type} must be a 0x-prefixed hex string`);
  }
  if (type === 'string') {
    return typeof value === 'string' ? value : new ArgumentProblem('a string must be a string');
  }
  return new ArgumentProblem(`arguments of type ${type} are not supported`);
}

/**
 * A function a policy names: a selector (0x and 8 hex digits) or a signature
 * ("transfer(address,uint256)", with or without "function" and names), as its selector.
 */
export function selectorOfFunction(named: string): Hex | undefined {
  if (/^0x[0-9a-fA-F]{8}$/.test(named)) return named.toLowerCase() as Hex;
  try {
    const item = parseAbiItem(named.startsWith('function ') ? named : `function ${named}`);
    return item.type === 'function' ? toFunctionSelector(item) : undefined;
  } catch {
    return undefined;
  }
}

/** A viem error's short message (its details apart); any other error's text. */
const viemWords = (error: unknown): string =>
  error instanceof Error && 'shortMessage' in error ? String(error.shortMessage) : String(error);
