import type { ActivityDependencies } from '../dependencies';
import { batchItems } from '../../store/batches';

export interface LoadBatchItemsParameters {
  batchId: string;
  fromIndex: number;
  count: number;
}

/** What the batch workflow needs to schedule an item: its place and its nonce domain. */
export interface ScheduledItem {
  index: number;
  /** The sending wallet: items of one wallet start in input order. */
  wallet: string;
}

/** A page of a batch's items, read from the database so the workflow history stays small. */
export const loadBatchItems =
  ({ db }: ActivityDependencies) =>
  async ({ batchId, fromIndex, count }: LoadBatchItemsParameters): Promise<ScheduledItem[]> =>
    (await batchItems(db.kysely, batchId, fromIndex, count)).map((item) => ({
      index: item.index,
      wallet: `${item.chainId}/${item.from}`,
    }));
