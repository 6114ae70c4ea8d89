import type { Chain } from '../chain/chain';
import type { Hex } from '../domain/transfer';
import type { WalletLane } from '../domain/wallet-choice';
import type { Database } from '../store/database';
import { walletLanes, walletsInReview, type LaneFacts } from '../store/wallet-lanes';
import { registeredWallets, usableWallets } from '../store/wallet-pools';

/**
 * Wallet → the intent in review whose nonce its lane waits behind: only while that nonce is
 * unused (once its own transaction or another is mined there, the lane has moved on).
 */
export async function blockedLanes(database: Database, chain: Chain): Promise<Map<string, string>> {
  const inReview = [...(await walletsInReview(database.kysely, chain.chainId))];
  const mined = await Promise.all(inReview.map(([wallet]) => chain.minedNonce(wallet as Hex)));
  return new Map(
    inReview
      .filter(([, { nonce }], i) => nonce >= mined[i]!)
      .map(([wallet, { intentId }]) => [wallet, intentId]),
  );
}

/**
 * The chain's side of the hot wallets an intent of `tenantId` may be signed with here: this
 * process signs for them, and they are in the tenant's pool and not retired. Balances (read once
 * per block), blocked lanes, and for a token intent what each holds of `token`.
 */
export async function signableLaneFacts(
  database: Database,
  chain: Chain,
  tenantId: string,
  token?: Hex,
): Promise<LaneFacts> {
  const usable = new Set(await usableWallets(database.kysely, tenantId, chain.chainId));
  const addresses = chain.walletAddresses.filter((address) => usable.has(address));
  return laneFactsOf(database, chain, addresses, token);
}

/**
 * Hot wallets of the chain as lanes (balance, nonces in flight, committed, blocked), whichever
 * process signs for them: every registered one by default (what operators see, from the API
 * process too), or `addresses`; with `token`, what each holds of it and has in flight.
 */
export async function lanesOf(
  database: Database,
  chain: Chain,
  addresses?: readonly Hex[],
  token?: Hex,
): Promise<WalletLane[]> {
  const wallets = addresses ?? ((await registeredWallets(database.kysely, chain.chainId)) as Hex[]);
  return walletLanes(
    database.kysely,
    chain.chainId,
    await laneFactsOf(database, chain, wallets, token),
  );
}

/**
 * What the chain says of `addresses` as lanes: balances, blocked lanes, and with `token` its
 * holdings.
 */
export async function laneFactsOf(
  database: Database,
  chain: Chain,
  addresses: readonly Hex[],
  token?: Hex,
): Promise<LaneFacts> {
  const [balances, blockedBy, tokenBalances] = await Promise.all([
    Promise.all(addresses.map((address) => chain.walletBalance(address))),
    blockedLanes(database, chain),
    token && Promise.all(addresses.map((address) => chain.tokenBalance(token, address))),
  ]);
  const byWallet = <T>(values: readonly T[]) =>
    new Map(addresses.map((address, index) => [address, values[index]!]));
  return {
    balances: byWallet(balances),
    blockedBy,
    ...(token && tokenBalances && { token: { address: token, balances: byWallet(tokenBalances) } }),
  };
}
