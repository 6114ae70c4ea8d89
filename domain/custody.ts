/**
 * The relayer's own money movements, each an intent like any other (the same steps, the same
 * exactly-once) owned by the operators rather than a tenant, so it changes no tenant's books and
 * no tenant policy applies to it; its gas is the house's. A top-up sends a chain's treasury's coin
 * to one of its hot wallets; a deposit sweep is the treasury's call to the chain's deposit factory
 * that empties a deposit address into the treasury. The same owner holds the operators' webhook
 * endpoints.
 */
export const operatorOwner = '@operator';

/** Whether an intent is a custody move (a top-up or a deposit sweep), not a tenant's payment. */
export const isCustodyMove = (intent: { tenantId: string }): boolean =>
  intent.tenantId === operatorOwner;

/** A deposit sweep is the one custody move that calls a contract. */
export const isDepositSweep = (intent: { tenantId: string; callData?: string | null }): boolean =>
  isCustodyMove(intent) && !!intent.callData;

/** Whether an intent tops up a hot wallet. */
export const isTopUp = (intent: { tenantId: string; callData?: string | null }): boolean =>
  isCustodyMove(intent) && !intent.callData;

/**
 * Where a top-up has ended: one in review has not (its bytes may yet land), so a wallet gets no
 * second top-up while it waits.
 */
export const topUpEndedStatuses = ['confirmed', 'failed', 'cancelled'] as const;

/** What a wallet's role is: `hot` wallets pay; a chain's `treasury` only tops them up. */
export type WalletRole = 'hot' | 'treasury';

/**
 * How much a top-up sends: the wallet back up to its target. Nothing (undefined) while the wallet
 * is at or above its low mark, or the target is not above its balance.
 */
export function topUpAmount(
  balanceWei: bigint,
  marks: { lowBalanceWei: bigint; topUpTargetWei: bigint },
): bigint | undefined {
  if (balanceWei >= marks.lowBalanceWei || marks.topUpTargetWei <= balanceWei) return undefined;
  return marks.topUpTargetWei - balanceWei;
}
