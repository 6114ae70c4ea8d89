/**
 * The books' names: every book is per chain, so money deposited on one chain can only pay out
 * there. `native:<chainId>` for a chain's native coin, `erc20:<chainId>:<address>` for a token.
 * Pure strings (no viem).
 *
 * Before migration 0011 the native coin had one book, `native`, whatever the chain: its postings
 * stay (no posting is rewritten) and sum to zero per account after the rebooking entry.
 */
export type LedgerBook = string;

/** The one native book of before migration 0011: read by it, never written since. */
export const retiredNativeBook = 'native';

export const nativeBookOf = (chainId: number): LedgerBook => `native:${chainId}`;

export const isNativeBook = (book: LedgerBook): boolean => book.startsWith('native:');

/** The chain a book counts on (undefined for the retired native book). */
export function chainOfBook(book: LedgerBook): number | undefined {
  const chain = /^(?:native|erc20):(\d+)/.exec(book)?.[1];
  return chain === undefined ? undefined : Number(chain);
}
