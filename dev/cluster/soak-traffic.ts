import { unsafeUniformIntDistribution, xoroshiro128plus, type RandomGenerator } from 'pure-rand';
import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createApiClient, ApiError, type SubmitBody } from '../../cli/api-client';
import { RejectionCode } from '../../domain/rejections';

export interface TrafficOptions {
  apiUrl: string;
  chainId: number;
  /** Tenant id → its API key. */
  tenantKeys: Map<string, string>;
  /** Intents a second, batch items included. */
  ratePerSecond: number;
  seed: number;
}

/** What the traffic did and saw, and whatever the API answered that it should not have. */
export interface TrafficTally {
  payments: number;
  batches: number;
  batchItems: number;
  cancelsAsked: number;
  cancelled: number;
  cancelRefused: number;
  duplicates: number;
  badInputs: number;
  /** Answers that were an outage (no answer, 5xx other than admission): asked again. */
  outageRetries: number;
  /** The outage answers by what they were: "503 closed", "no answer: fetch failed", … */
  outageAnswers: Record<string, number>;
  /** Admission said not now (tenant_limit_reached, pool_full): asked again, the same key. */
  admissionRetries: number;
  /** Submits admission refused as the traffic stopped, not asked again (nothing was written). */
  notAskedAgain: number;
  problems: string[];
}

/** An intent the API accepted: when, so its latency can be read from its end. */
export interface AcceptedIntent {
  id: string;
  submittedAt: number;
}

/** Bad requests the traffic sends now and then, each with the answer it must get. */
const badBodies: { name: string; body: (chainId: number) => unknown }[] = [
  { name: 'negative amount', body: (chainId) => ({ chainId, to: randomAddress(), amount: '-1' }) },
  { name: 'address not hex', body: (chainId) => ({ chainId, to: '0xnothex', amount: '1' }) },
  {
    name: 'unknown field',
    body: (chainId) => ({ chainId, to: randomAddress(), amount: '1', fee: 1 }),
  },
  { name: 'no chain', body: () => ({ to: randomAddress(), amount: '1' }) },
];

/** A submit admission refused that the soak did not ask again, as it was ending: nothing written. */
class NotAskedAgain extends Error {}

const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** How long one submit is asked again through an outage (a database restart) before it is a problem. */
const outagePatienceMs = 180_000;

/**
 * Steady traffic through the HTTP API, as payments teams send it, on a seeded schedule: single
 * payments (unpinned), a batch of 10 every 30 s, some payments cancelled right after they are
 * accepted, some sent twice with the same Idempotency-Key, and now and then a bad request. Every
 * submit is asked again with its key through outages and admission refusals, as a client would.
 */
export class SoakTraffic {
  readonly accepted: AcceptedIntent[] = [];
  readonly batchIds: string[] = [];
  readonly tally: TrafficTally = {
    payments: 0,
    batches: 0,
    batchItems: 0,
    cancelsAsked: 0,
    cancelled: 0,
    cancelRefused: 0,
    duplicates: 0,
    badInputs: 0,
    outageRetries: 0,
    outageAnswers: {},
    admissionRetries: 0,
    notAskedAgain: 0,
    problems: [],
  };
  private random: RandomGenerator;
  private stopped = false;
  private readonly inFlight = new Set<Promise<void>>();
  private running: Promise<void> | undefined;
  private sequence = 0;

  constructor(private readonly options: TrafficOptions) {
    this.random = xoroshiro128plus(options.seed);
  }

  start(): void {
    this.running = this.loop();
  }

  /** Stops sending; resolves once every request in flight has its answer. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
    await Promise.all(this.inFlight);
  }

  private chance(percent: number): boolean {
    return unsafeUniformIntDistribution(0, 99, this.random) < percent;
  }

  private pick<T>(items: readonly T[]): T {
    return items[unsafeUniformIntDistribution(0, items.length - 1, this.random)]!;
  }

  private async loop(): Promise<void> {
    const tickMs = 100;
    const tenants = [...this.options.tenantKeys.keys()];
    let owed = 0;
    let nextBatchAt = Date.now() + 30_000;
    while (!this.stopped) {
      owed += (this.options.ratePerSecond * tickMs) / 1000;
      if (Date.now() >= nextBatchAt) {
        // Ten intents at once: the payments that follow wait until the rate has paid for them.
        nextBatchAt += 30_000;
        owed -= 10;
        this.track(this.batch(this.pick(tenants)));
      }
      for (; owed >= 1; owed--) {
        const tenant = this.pick(tenants);
        if (this.chance(2)) this.track(this.badInput(tenant));
        this.track(this.payment(tenant, { cancel: this.chance(5), twice: this.chance(5) }));
      }
      await sleep(tickMs);
    }
  }

  private track(request: Promise<void>): void {
    const tracked = request.catch((error: Error) => {
      if (error instanceof NotAskedAgain) this.tally.notAskedAgain++;
      else this.tally.problems.push(`unexpected: ${error.message}`);
    });
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
  }

  private api(tenant: string) {
    return createApiClient(this.options.apiUrl, this.options.tenantKeys.get(tenant));
  }

  private body(): SubmitBody {
    return {
      chainId: this.options.chainId,
      to: randomAddress(),
      amount: parseEther('0.001').toString(),
    };
  }

  /** Asks until the API takes it: outages and admission refusals are asked again. */
  private async untilTaken<T>(ask: () => Promise<T>): Promise<T> {
    const since = Date.now();
    for (;;) {
      try {
        return await ask();
      } catch (error) {
        const code = error instanceof ApiError ? error.body.code : undefined;
        const admission =
          code === RejectionCode.tenantLimitReached || code === RejectionCode.poolFull;
        // No answer, or a server error (the API or its database restarting): an outage.
        const outage = !(error instanceof ApiError) || (error.status >= 500 && !admission);
        if (!admission && !outage) throw error;
        // Refused by admission, nothing was written: once the soak stops, it is not asked again.
        if (admission && this.stopped) throw new NotAskedAgain();
        if (outage && Date.now() - since > outagePatienceMs) throw error;
        if (admission) this.tally.admissionRetries++;
        else {
          this.tally.outageRetries++;
          const answer =
            error instanceof ApiError
              ? `${error.status} ${error.body.code}`
              : `no answer: ${(error as Error).message}`;
          this.tally.outageAnswers[answer] = (this.tally.outageAnswers[answer] ?? 0) + 1;
        }
        const retryAfter = error instanceof ApiError ? error.retryAfterSeconds : undefined;
        await sleep(Math.min(5000, (retryAfter ?? 0.5) * 1000));
      }
    }
  }

  private async payment(tenant: string, what: { cancel: boolean; twice: boolean }): Promise<void> {
    const api = this.api(tenant);
    const body = this.body();
    const key = `soak-${this.options.seed}-${this.sequence++}`;
    const submittedAt = Date.now();
    const { body: intent } = await this.untilTaken(() => api.submit(body, key));
    this.accepted.push({ id: intent.id, submittedAt });
    this.tally.payments++;
    if (what.twice) {
      this.tally.duplicates++;
      const { status, body: again } = await this.untilTaken(() => api.submit(body, key));
      if (again.id !== intent.id || status !== 200) {
        this.tally.problems.push(
          `a second submit with key ${key} answered ${status} ${again.id}, not 200 ${intent.id}`,
        );
      }
    }
    if (what.cancel) {
      this.tally.cancelsAsked++;
      try {
        await this.untilTaken(() => api.cancel(intent.id));
        this.tally.cancelled++;
      } catch (error) {
        // Signed already: a cancel is refused with its code, and the payment goes on.
        if (error instanceof ApiError && error.body.code === RejectionCode.notCancellable) {
          this.tally.cancelRefused++;
        } else throw error;
      }
    }
  }

  private async batch(tenant: string): Promise<void> {
    const api = this.api(tenant);
    const items = Array.from({ length: 10 }, () => this.body());
    const key = `soak-batch-${this.options.seed}-${this.sequence++}`;
    const { body: batch } = await this.untilTaken(() =>
      api.submitBatch({ items, concurrency: 5 }, key),
    );
    this.batchIds.push(batch.id);
    this.tally.batches++;
    this.tally.batchItems += items.length;
  }

  private async badInput(tenant: string): Promise<void> {
    const bad = this.pick(badBodies);
    this.tally.badInputs++;
    try {
      await this.untilTaken(() =>
        this.api(tenant).call('POST', '/v1/intents', {
          body: bad.body(this.options.chainId),
          headers: { 'idempotency-key': `soak-bad-${this.options.seed}-${this.sequence++}` },
        }),
      );
      this.tally.problems.push(`a bad request (${bad.name}) was accepted`);
    } catch (error) {
      if (
        !(error instanceof ApiError) ||
        error.status !== 400 ||
        error.body.code !== RejectionCode.invalidRequest
      ) {
        this.tally.problems.push(`a bad request (${bad.name}) answered ${String(error)}`);
      }
    }
  }
}
