import type { ChainRegistry } from '../../chain/chain';
import type { Database } from '../../store/database';

// What a review decision needs, and who took it.

/** What deciding needs: the books and the chain, to check the decision against. */
export interface ReviewCheckDependencies {
  database: Database;
  chains: ChainRegistry;
  clock?: () => Date;
}

/**
 * Who decides, the key of the step applying it (recorded in the audit entry), if any, and the
 * intent's version the decision was taken on, if known (a later stay in review refuses it).
 */
export interface DecidedBy {
  actor: string;
  decisionKey?: string;
  intentVersion?: number;
}
