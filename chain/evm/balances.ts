import { hexToBigInt } from 'viem';
import type { Hex } from '../../domain/transfer';
import { balanceOfCall } from '../erc20';
import type { EvmContext, RpcErrorType } from './context';

export type WalletBalanceParameters = { address: Hex };
/** In wei. */
export type WalletBalanceReturnType = bigint;
export type WalletBalanceErrorType = RpcErrorType;

/**
 * A wallet's native balance at the watched head. The last read of each wallet is kept while no
 * block since touched the wallet, up to a recheck time (money can also arrive by a contract's
 * internal transfer, which no transaction's sender or recipient shows).
 */
export async function walletBalance(
  { rpc, watcher, reads, client, lookMaxAgeMs, settings, balances }: EvmContext,
  { address }: WalletBalanceParameters,
): Promise<WalletBalanceReturnType> {
  const balanceRecheckMs = Math.min(60_000, Math.max(10_000, 10 * settings.blockTimeMs));
  const { block } = await rpc(watcher.currentHead(lookMaxAgeMs));
  const wallet = address.toLowerCase();
  const last = balances.get(wallet);
  if (
    last &&
    Date.now() - last.readAt < balanceRecheckMs &&
    watcher.untouchedSince(address, block, last.block)
  ) {
    return last.wei;
  }
  const wei = await rpc(
    reads.valueAt(block.hash, address, () =>
      client.getBalance({ address, blockNumber: block.number }),
    ),
    address,
  );
  // A read of an older head that ended later keeps the newer balance.
  if ((balances.get(wallet)?.block.number ?? -1n) <= block.number) {
    balances.set(wallet, { block, wei, readAt: Date.now() });
  }
  return wei;
}

export type TokenBalanceParameters = { token: Hex; wallet: Hex };
/** In the token's base units. */
export type TokenBalanceReturnType = bigint;
export type TokenBalanceErrorType = RpcErrorType;

/** A wallet's balance of an ERC-20 token at the watched head, read once per block. */
export async function tokenBalance(
  { rpc, watcher, reads, client, lookMaxAgeMs }: EvmContext,
  { token, wallet }: TokenBalanceParameters,
): Promise<TokenBalanceReturnType> {
  const { block } = await rpc(watcher.currentHead(lookMaxAgeMs));
  return rpc(
    reads.valueAt(block.hash, `${token}/${wallet}`, async () => {
      const { data } = await client.call({
        to: token,
        data: balanceOfCall(wallet),
        blockNumber: block.number,
      });
      return data && data !== '0x' ? hexToBigInt(data) : 0n;
    }),
    wallet,
  );
}
