import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { ServiceDependencies } from '../service/dependencies';
import { intentCountsByStatus } from '../service/intent-queries';
import { listPauses } from '../service/pauses';
import { reconciliationDifferences } from '../service/deposits';
import { IntentStatus, notYetSignedStatuses } from '../domain/intent';
import type { RejectionCode } from '../domain/rejections';

/**
 * What the API admits and refuses, counted here, and the intents by status, read from the
 * database at each scrape: the durable truth, the same whichever process is scraped.
 */
export class ApiMetrics {
  private readonly submitted: Counter;
  private readonly rejected: Counter<'reason'>;
  private readonly batchSizes: Histogram;

  constructor(registry: Registry, database: ServiceDependencies['database']) {
    this.submitted = new Counter({
      name: 'relayer_intents_submitted_total',
      help: 'New intents admitted through the API (an idempotent replay is not counted)',
      registers: [registry],
    });
    this.rejected = new Counter({
      name: 'relayer_intents_rejected_total',
      help: 'Submits turned away, by reason (the API error code)',
      labelNames: ['reason'],
      registers: [registry],
    });
    this.batchSizes = new Histogram({
      name: 'relayer_batch_items',
      help: 'Items per batch submitted',
      buckets: [1, 10, 100, 1000, 10_000, 50_000],
      registers: [registry],
    });
    const byStatus = () => intentCountsByStatus(database);
    new Gauge({
      name: 'relayer_intents',
      help: 'Intents by status (confirmed, failed, needs_review, cancelled are completed ones)',
      labelNames: ['status'],
      registers: [registry],
      async collect() {
        const counts = await byStatus();
        for (const status of Object.values(IntentStatus)) this.set({ status }, counts[status] ?? 0);
      },
    });
    new Gauge({
      name: 'relayer_intents_queued',
      help: 'Intents accepted and not yet signed (the backlog admission bounds)',
      registers: [registry],
      async collect() {
        const counts = await byStatus();
        this.set([...notYetSignedStatuses].reduce((sum, s) => sum + (counts[s] ?? 0), 0));
      },
    });
    new Gauge({
      name: 'relayer_paused',
      help: "Operators' pauses by scope (relayer, tenant, chain) and target: 1 while paused, 0 once resumed",
      labelNames: ['scope', 'target'],
      registers: [registry],
      async collect() {
        this.reset();
        // Oldest first, so a subject's pause in force (1) is set after its resumed ones (0).
        const history = (await listPauses({ database }, true)).reverse();
        for (const { scope, target, resumedAt } of history) {
          this.set({ scope, target }, resumedAt === null ? 1 : 0);
        }
      },
    });
    new Gauge({
      name: 'relayer_deposit_differences',
      help: "Differences each chain's last deposit reconciliation found between the chain and the books (0: they agree)",
      labelNames: ['chain_id'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const { chainId, differences } of await reconciliationDifferences({ database })) {
          this.set({ chain_id: String(chainId) }, differences);
        }
      },
    });
    new Gauge({
      name: 'relayer_sends_active',
      help: 'Intents whose transaction is signed and not yet confirmed',
      registers: [registry],
      async collect() {
        const counts = await byStatus();
        this.set((counts.signed ?? 0) + (counts.confirming ?? 0));
      },
    });
  }

  recordSubmitted(): void {
    this.submitted.inc();
  }

  recordRejected(reason: RejectionCode): void {
    this.rejected.inc({ reason });
  }

  recordBatch(items: number): void {
    this.batchSizes.observe(items);
  }
}
