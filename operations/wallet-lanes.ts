import type { Chain } from '../chain/chain';
import type { Hex } from '../domain/transfer';
import type { WalletLane } from '../domain/wallet-choice';
import type { Database } from '../store/database';
import { walletLanes, walletsInReview, type LaneFacts } from '../store/wallet-lanes';
import { usableWallets } from '../store/wallet-pools';

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
 * The chain's side of the hot wallets an intent of `tenantId` may be signed with (in its pool,
 * not retired; all of this process's wallets when no tenant is named): balances (read once per
 * block) and blocked lanes.
 */
export async function laneFacts(
  database: Database,
  chain: Chain,
  tenantId?: string,
): Promise<LaneFacts> {
  const usable =
    tenantId === undefined
      ? undefined
      : new Set(await usableWallets(database.kysely, tenantId, chain.chainId));
  const addresses = chain.walletAddresses.filter((address) => usable?.has(address) ?? true);
  const [balances, blockedBy] = await Promise.all([
    Promise.all(addresses.map((address) => chain.walletBalance(address))),
    blockedLanes(database, chain),
  ]);
  return {
    balances: new Map(addresses.map((address, index) => [address, balances[index]!])),
    blockedBy,
  };
}

/** Every hot wallet of the chain as a lane: balance, nonces in flight, committed, blocked. */
export async function lanesOf(database: Database, chain: Chain): Promise<WalletLane[]> {
  return walletLanes(database.kysely, chain.chainId, await laneFacts(database, chain));
}
