import { getAddress, isAddress, isHex } from 'viem';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { z } from 'zod';
import { crashPoints, type CrashPoint } from '../../activities/failpoints';
import {
  knownRpcMethods,
  presetWeights,
  weightPresets,
  type MethodWeights,
  type WeightPreset,
} from '../../throttle/rpc-weights';
import type { Role } from './role';

/** How a setting is read from the environment, and the parsers the settings share. */
export interface Setting<T> {
  env: string;
  doc: string;
  /** The default as it would be written in the environment; undefined = required. */
  fallback?: string;
  /** Unset is fine unless the process runs this role (its fallback is then ''). */
  requiredBy?: Role;
  /** Never echoed back in an error message. */
  secret?: boolean;
  parse: z.ZodType<T, string>;
}

export const integer = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .regex(/^\d+$/, { error: 'must be a whole number' })
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, { error: `must be at least ${min}` })
        .max(max, { error: `must be at most ${max}` }),
    );

const yes = ['true', '1', 'yes', 'on'];
const no = ['false', '0', 'no', 'off'];
/** A switch as people type one: true/false, 1/0, yes/no, on/off, in any case. */
export const onOff = z
  .string()
  .transform((value) => value.trim().toLowerCase())
  .refine((value) => yes.includes(value) || no.includes(value), {
    error: `must be one of ${[...yes, ...no].join(', ')}`,
  })
  .transform((value) => yes.includes(value));

/** The non-empty parts of a value, trimmed, between `separator`s. */
export const separated = (separator: string) =>
  z.string().transform((value) =>
    value
      .split(separator)
      .map((part) => part.trim())
      .filter(Boolean),
  );

export const list = <T>(item: z.ZodType<T, string>) =>
  separated(',').pipe(z.array(item).min(1, { error: 'must list at least one value' }));

export const url = z.url({ error: 'must be a URL' });

/** Unset (empty) means off. */
export const optional = <T>(schema: z.ZodType<T, string>) =>
  z
    .string()
    .transform((value) => (value === '' ? undefined : value))
    .pipe(schema.optional());
/** A 0x address, any case, read in its checksummed spelling. */
export const address = z
  .string()
  .refine((value) => isAddress(value, { strict: false }), { error: 'must be a 0x address' })
  .transform((value) => getAddress(value));

export const privateKey = z
  .string()
  .refine((value) => isHex(value) && value.length === 66, {
    error: 'must be 0x followed by 64 hex digits (a private key)',
  })
  .transform((value) => value as `0x${string}`);

/** A decimal amount in `unit` (gwei, ether), read exactly into wei. */
export const decimal = (parse: (value: string) => bigint, unit: string) =>
  decimalOrZero(parse, unit).pipe(z.bigint().positive({ error: `must be more than 0 ${unit}` }));

/** A decimal number of `unit` from 0, in its base units. */
export const decimalOrZero = (parse: (value: string) => bigint, unit: string) =>
  z
    .string()
    .regex(/^\d+(\.\d+)?$/, { error: `must be a decimal number of ${unit}` })
    .transform((value) => parse(value));

/** `finalized` (the node's finalized block) or a depth in blocks. */
export const finalitySetting = z.union([z.literal('finalized'), integer(1, 100_000)], {
  error: 'must be finalized or a depth in blocks (a whole number from 1)',
});

/** `<chainId>=<url>[,<url>…]`: one more chain and its endpoints, in failover order. */
export const extraChain = z
  .string()
  .regex(/^\d+=\S+$/, { error: 'each chain must be written <chainId>=<url>[,<url>…]' })
  .transform((value) => {
    const [id, urls] = value.split('=', 2) as [string, string];
    return { chainId: id, rpcUrls: urls };
  })
  .pipe(z.object({ chainId: integer(1), rpcUrls: list(url) }));

/** `<crash point>[@<n>]`, n-th time reached (default the first). */
const crashAt = z.string().transform((value, context) => {
  const [point, times = '1'] = value.split('@', 2) as [string, string?];
  if (!(crashPoints as readonly string[]).includes(point)) {
    context.addIssue({
      code: 'custom',
      message: `${point} is not one of ${crashPoints.join(', ')}`,
    });
    return z.NEVER;
  }
  if (!/^[1-9]\d*$/.test(times)) {
    context.addIssue({ code: 'custom', message: `${value}: @ must be followed by a count from 1` });
    return z.NEVER;
  }
  return [point as CrashPoint, Number(times)] as const;
});

/** Crash points with the time each is reached at, e.g. `after-sign@3, after-hold` (unset: none). */
export const crashPlan = optional(list(crashAt).transform((entries) => new Map(entries)));

/** `[<preset>,]<method>=<units>,…`: a preset's table with some methods weighed otherwise. */
export const methodWeights = z.string().transform((value, context): MethodWeights => {
  const parts = value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  const first = parts[0] ?? 'per-call';
  const preset = (weightPresets as readonly string[]).includes(first)
    ? (first as WeightPreset)
    : undefined;
  const base = presetWeights(preset ?? 'per-call');
  const byMethod: Record<string, number> = { ...base.byMethod };
  for (const part of preset ? parts.slice(1) : parts) {
    const match = /^([A-Za-z0-9_]+)=(\S+)$/.exec(part);
    if (!match) {
      context.addIssue({
        code: 'custom',
        message: `"${part}" is neither a preset (${weightPresets.join(', ')}) nor <method>=<units>`,
      });
      continue;
    }
    const [, method, units] = match as unknown as [string, string, string];
    if (!(knownRpcMethods as readonly string[]).includes(method)) {
      context.addIssue({ code: 'custom', message: `${method} is not a JSON-RPC method we know` });
    } else if (!/^\d+$/.test(units) || Number(units) < 1) {
      context.addIssue({
        code: 'custom',
        message: `${method}'s weight must be a whole number of units from 1 (got ${units})`,
      });
    } else byMethod[method] = Number(units);
  }
  return { ...base, byMethod };
});

export const setting = <T>(s: Setting<T>): Setting<T> => s;

/** An address or CIDR (v4 or v6), as proxy-addr takes one. */
function isAddressOrCidr(value: string): boolean {
  const [address, prefix, ...rest] = value.split('/');
  const version = isIP(address ?? '');
  if (version === 0 || rest.length > 0) return false;
  return (
    prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128))
  );
}

/** TRUST_PROXY: a number of hops (1 to 10), or the proxies' addresses and CIDRs. */
export const trustedProxies = z.string().transform((value, context): number | string[] => {
  if (/^\d+$/.test(value.trim())) {
    const hops = Number(value);
    if (hops >= 1 && hops <= 10) return hops;
    context.addIssue({ code: 'custom', message: 'a number of hops must be 1 to 10' });
    return z.NEVER;
  }
  const proxies = value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  if (proxies.length > 0 && proxies.every(isAddressOrCidr)) return proxies;
  context.addIssue({
    code: 'custom',
    message: 'must be addresses or CIDRs (10.0.0.0/8), comma-separated, or a number of hops',
  });
  return z.NEVER;
});

/** A PEM file named by its path, read at start: its content. */
export const pemFile = z.string().transform((path, context) => {
  try {
    const pem = readFileSync(path, 'utf8');
    if (pem.includes('-----BEGIN CERTIFICATE-----')) return pem;
    context.addIssue({ code: 'custom', message: `${path} holds no PEM certificate` });
  } catch (error) {
    context.addIssue({
      code: 'custom',
      message: `cannot read ${path} (${(error as NodeJS.ErrnoException).code})`,
    });
  }
  return z.NEVER;
});
