import { getAddress, isAddress, type Hex } from 'viem';
import { baseUnitsOf, ledgerAssetOf, nativeAsset, type RegisteredToken } from '../domain/asset';
import {
  InvalidIntentError,
  UnknownAssetError,
  UnknownChainError,
  UnknownTenantError,
} from '../domain/errors';
import type { IntentBody } from '../domain/intent-request';
import {
  findToken,
  insertToken,
  listTokens,
  resolveAsset,
  unregisteredDepositsOf,
} from '../store/assets';
import type { Database } from '../store/database';
import { deposit, tenantBalances, type TenantBalance } from '../store/ledger';
import { findTenant } from '../store/tenants';
import { registeredWallets, servedChains } from '../store/wallet-pools';
import type { ServiceDependencies } from './dependencies';

type Deps = Pick<ServiceDependencies, 'database' | 'chains' | 'clock'>;

/** An alias a caller may name an asset by: like a symbol, unique per chain, never "native". */
const aliasPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/;

export interface TokenRegistration {
  chainId: number;
  address: string;
  /** Defaults to the token's symbol. */
  alias?: string;
  /** The operator's word on a fee taken on transfer, over what the probe finds. */
  feeOnTransfer?: boolean;
}

export interface RegisteredTokenReport extends RegisteredToken {
  /** What the delivery probe found: it needs a hot wallet holding some of the token. */
  probe: 'fee_on_transfer' | 'delivers_in_full' | 'not_probed';
  /** Transfers of it that reached deposit addresses before it was registered: not credited. */
  unregisteredDeposits: { count: number; amount: bigint };
}

const invalid = (field: string, message: string) => new InvalidIntentError([{ field, message }]);

/**
 * Registers an ERC-20 for a chain: its symbol and decimals are read from the token itself (never
 * guessed from a symbol), and a transfer is simulated from a hot wallet holding some of it, to
 * see whether it delivers less than it sends (a fee on transfer). Refused, writing nothing, for
 * an address that answers no `symbol`/`decimals`, or an address or alias taken on the chain.
 */
export async function registerToken(
  { database, chains, clock }: Deps,
  request: TokenRegistration,
): Promise<RegisteredTokenReport> {
  if (!isAddress(request.address, { strict: false })) {
    throw invalid('address', `"${request.address}" is not an address`);
  }
  const address = getAddress(request.address);
  const chain = chains.get(request.chainId);
  let info: { symbol: string; decimals: number };
  try {
    info = await chain.tokenInfo(address);
  } catch {
    throw invalid(
      'address',
      `${address} on chain ${request.chainId} answers no ERC-20 symbol() and decimals(): not a token`,
    );
  }
  const alias = request.alias ?? info.symbol;
  if (alias === nativeAsset || !aliasPattern.test(alias)) {
    throw invalid(
      'alias',
      `"${alias}" cannot name an asset: 1-32 letters, digits, ".", "_" or "-", and not "native"${request.alias ? '' : " (the token's symbol; give an alias)"}`,
    );
  }
  const probe = await probeFeeOnTransfer(database, chain, address, info.decimals);
  const token: RegisteredToken = {
    chainId: request.chainId,
    address,
    alias,
    symbol: info.symbol,
    decimals: info.decimals,
    feeOnTransfer: request.feeOnTransfer ?? probe === 'fee_on_transfer',
  };
  if (!(await insertToken(database.kysely, token, clock?.() ?? new Date()))) {
    const existing = await findToken(database.kysely, request.chainId, { address });
    throw invalid(
      existing ? 'address' : 'alias',
      existing
        ? `${address} is registered on chain ${request.chainId} already, as "${existing.alias}"`
        : `the alias "${alias}" is taken on chain ${request.chainId}: give another`,
    );
  }
  const unregisteredDeposits = await unregisteredDepositsOf(
    database.kysely,
    request.chainId,
    address,
  );
  return { ...token, probe, unregisteredDeposits };
}

/** A transfer of one whole token simulated from each hot wallet in turn, until one can make it. */
async function probeFeeOnTransfer(
  database: Database,
  chain: ReturnType<Deps['chains']['get']>,
  token: `0x${string}`,
  decimals: number,
): Promise<RegisteredTokenReport['probe']> {
  const amount = 10n ** BigInt(decimals);
  for (const wallet of await registeredWallets(database.kysely, chain.chainId)) {
    const delivered = await chain
      .probeDelivery(token, wallet as `0x${string}`, amount)
      .catch(() => 0n);
    if (delivered === 0n) continue;
    return delivered < amount ? 'fee_on_transfer' : 'delivers_in_full';
  }
  return 'not_probed';
}

export const tokensOf = (database: Database, chainId?: number): Promise<RegisteredToken[]> =>
  listTokens(database.kysely, chainId);

/**
 * The amount of an intent body in base units: `amount` as given, or `decimalAmount` by the
 * asset's decimals (18 for the native coin). Refused for an asset not registered on the chain,
 * and for a decimal with more fractional digits than the asset has.
 */
export async function baseUnitsOfBody(
  database: Database,
  body: Pick<IntentBody, 'chainId' | 'asset' | 'amount' | 'decimalAmount'>,
  field = 'decimalAmount',
): Promise<bigint> {
  if (body.amount !== undefined) return body.amount;
  const decimals = await decimalsOf(database, body.chainId, body.asset);
  const units = baseUnitsOf(body.decimalAmount!, decimals);
  if (units === undefined || units === 0n) {
    throw invalid(
      field,
      `"${body.decimalAmount}" is not a positive amount of ${body.asset} with at most ${decimals} decimals`,
    );
  }
  return units;
}

/** The parts of an intent body other than what it pays (`paymentOfBody`). */
function withoutPayment(
  body: IntentBody,
): Omit<IntentBody, 'amount' | 'decimalAmount' | 'call' | 'value'> {
  const { amount, decimalAmount, call, value, ...rest } = body;
  void [amount, decimalAmount, call, value];
  return rest;
}

/**
 * An intent body as the service takes it: what it pays in base units (a decimal amount of a
 * registered token read in its units), the rest as it came; `field` names a refused amount.
 */
export async function intentOfBody(database: Database, body: IntentBody, field?: string) {
  return { ...withoutPayment(body), ...(await paymentOfBody(database, body, field)) };
}

/** What an intent body pays: a call's data and native value, or a transfer's base units. */
async function paymentOfBody(
  database: Database,
  body: IntentBody,
  field?: string,
): Promise<{ amount: bigint; callData?: Hex }> {
  if (body.call) return { amount: body.value ?? 0n, callData: body.call.data };
  return { amount: await baseUnitsOfBody(database, body, field) };
}

/** The asset's decimals on the chain (18 for the native coin); refused for an unknown asset. */
export async function decimalsOf(
  database: Database,
  chainId: number,
  asset: string,
): Promise<number> {
  const resolved = await resolveAsset(database.kysely, chainId, asset);
  if (!resolved) throw new UnknownAssetError(chainId, asset);
  return resolved.token?.decimals ?? 18;
}

/**
 * The chain a deposit goes to: `chainId` when the relayer has hot wallets on it, or, unnamed, the
 * one chain it serves. Books are per chain, so a mistyped chain id is refused, never booked.
 */
export async function servedChain(database: Database, chainId?: number): Promise<number> {
  const served = await servedChains(database.kysely);
  if (chainId !== undefined) {
    if (!served.includes(chainId)) throw new UnknownChainError(chainId, served);
    return chainId;
  }
  if (served.length === 1) return served[0]!;
  throw new InvalidIntentError([
    {
      field: 'chainId',
      message:
        served.length === 0
          ? 'the relayer has no hot wallet on any chain yet: start a worker once'
          : `books are per chain and the relayer serves chains ${served.join(', ')}: name one`,
    },
  ]);
}

/**
 * Credits a tenant with `amount` base units of an asset (`native`, or a registered token's alias
 * or address on `chainId`) in its book on that chain, opening it: an operator's deposit, from the
 * CLI. The chain must be one the relayer has hot wallets on, so a mistyped chain id books nothing.
 */
export async function depositAsset(
  database: Database,
  request: { tenantId: string; chainId: number; asset: string; amount: bigint },
  now: Date,
): Promise<{ asset: string; balance: TenantBalance }> {
  if (!(await findTenant(database.kysely, request.tenantId))) {
    throw new UnknownTenantError(request.tenantId);
  }
  await servedChain(database, request.chainId);
  const resolved = await resolveAsset(database.kysely, request.chainId, request.asset);
  if (!resolved) throw new UnknownAssetError(request.chainId, request.asset);
  const asset = ledgerAssetOf(request.chainId, resolved.ref);
  await deposit(database, request.tenantId, request.amount, now, asset);
  return { asset, balance: (await tenantBalances(database.kysely, request.tenantId)).get(asset)! };
}
