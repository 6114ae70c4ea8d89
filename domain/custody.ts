/**
 * The relayer's own money movements. A top-up sends native coin from a chain's treasury wallet to
 * one of its hot wallets: an intent like any other (the same steps, the same exactly-once), owned
 * by the operators rather than a tenant, so it changes no tenant's books and no tenant policy
 * applies to it; its gas is the house's. The same owner holds the operators' webhook endpoints.
 */
export const operatorOwner = '@operator';

/** Whether an intent is a custody move (a top-up) rather than a tenant's payment. */
export const isTopUp = (intent: { tenantId: string }): boolean => intent.tenantId === operatorOwner;

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
