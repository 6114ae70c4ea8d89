import type { ActivityDependencies } from '../dependencies';
import { batchItems } from '../../store/batch-items';

export interface LoadBatchItemsParameters {
  batchId: string;
  fromIndex: number;
  count: number;
}

/** What the batch workflow needs to schedule an item: its place and its nonce domain. */
export interface ScheduledItem {
  index: number;
  /**
   * The sending wallet the item named: items of one wallet start in input order. Absent: the
   * relayer chooses one when it signs, so the item waits for no other.
   */
  wallet?: string;
}

/**
 * A page of a batch's items, read from the database so the workflow history stays small. Its
 * recipients are looked at on-chain now, in one call per chain, rather than each at its signing.
 */
export const loadBatchItems =
  ({ db, chains }: ActivityDependencies) =>
  async ({ batchId, fromIndex, count }: LoadBatchItemsParameters): Promise<ScheduledItem[]> => {
    const page = await batchItems(db.kysely, batchId, fromIndex, count);
    for (const chainId of new Set(page.map((item) => item.chainId))) {
      if (!chains.chainIds.includes(chainId)) continue;
      chains
        .get(chainId)
        .expectRecipients(page.filter((item) => item.chainId === chainId).map((item) => item.to));
    }
    return page.map((item) => ({
      index: item.index,
      ...(item.from !== null && { wallet: `${item.chainId}/${item.from}` }),
    }));
  };
