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
 * per block) and blocked lanes.
 */
export async function signableLaneFacts(
  database: Database,
  chain: Chain,
  tenantId: string,
): Promise<LaneFacts> {
  const usable = new Set(await usableWallets(database.kysely, tenantId, chain.chainId));
  return laneFacts(
    database,
    chain,
    chain.walletAddresses.filter((address) => usable.has(address)),
  );
}

/**
 * Every registered hot wallet of the chain as a lane (balance, nonces in flight, committed,
 * blocked), whichever process signs for it: what operators see, from the API process too.
 */
export async function lanesOf(database: Database, chain: Chain): Promise<WalletLane[]> {
  const registered = (await registeredWallets(database.kysely, chain.chainId)) as Hex[];
  return walletLanes(database.kysely, chain.chainId, await laneFacts(database, chain, registered));
}

async function laneFacts(
  database: Database,
  chain: Chain,
  addresses: readonly Hex[],
): Promise<LaneFacts> {
  const [balances, blockedBy] = await Promise.all([
    Promise.all(addresses.map((address) => chain.walletBalance(address))),
    blockedLanes(database, chain),
  ]);
  return {
    balances: new Map(addresses.map((address, index) => [address, balances[index]!])),
    blockedBy,
  };
}
