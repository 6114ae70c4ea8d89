import { log } from '../domain/log';

/**
 * Expected conditions (a step finding its intent already closed, a send waiting for the RPC
 * pace) counted by kind and step, and told in one line a minute instead of a line each: at a
 * busy quota they come by the hundred a second and say nothing new one by one.
 */
export class ExpectedConditions {
  private counts = new Map<string, number>();
  private since = Date.now();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly tell: (counts: Record<string, number>, seconds: number) => void = (
      counts,
      seconds,
    ) => log.info({ expected: counts, seconds }, 'expected conditions, counted'),
    private readonly everyMs = 60_000,
  ) {}

  note(condition: string, step: string): void {
    const key = `${condition} in ${step}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    this.timer ??= setInterval(() => this.report(), this.everyMs).unref();
  }

  /** Tells what was counted since the last report (nothing when nothing was). */
  report(): void {
    if (this.counts.size > 0) {
      this.tell(Object.fromEntries(this.counts), Math.round((Date.now() - this.since) / 1000));
    }
    this.counts.clear();
    this.since = Date.now();
  }

  /** The last report, and no more: a process stopping. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.report();
  }
}
