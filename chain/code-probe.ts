import { NodeAnswerUnfitError } from '../domain/errors';
import { hexToBigInt, type PublicClient } from 'viem';
import type { Hex } from '../domain/transfer';

/** The most addresses one probe reads (offsets fit PUSH2; gas stays far below a block's). */
const maxAddressesPerProbe = 200;

/**
 * EVM init code that returns EXTCODESIZE of each address, one 32-byte word each, in order: run
 * as a deployless eth_call (no `to`), its "deployed code" is the answer. Unrolled per address:
 * PUSH20 address, EXTCODESIZE, PUSH2 offset, MSTORE; then PUSH2 length, PUSH1 0, RETURN.
 */
export function codeSizesProgram(addresses: readonly Hex[]): Hex {
  const word = (n: number) => n.toString(16).padStart(4, '0');
  const reads = addresses.map(
    (address, i) => `73${address.slice(2).toLowerCase()}3b61${word(i * 32)}52`,
  );
  return `0x${reads.join('')}61${word(addresses.length * 32)}6000f3`;
}

/** The sizes a `codeSizesProgram` call returned, in the order of its addresses. */
export function codeSizesOf(answer: Hex, count: number): number[] {
  const words = answer.slice(2);
  if (words.length !== count * 64) {
    throw new NodeAnswerUnfitError({
      problem: `code probe: ${count} words expected, ${words.length / 64} came`,
    });
  }
  return Array.from({ length: count }, (_, i) =>
    Number(hexToBigInt(`0x${words.slice(i * 64, (i + 1) * 64)}`)),
  );
}

interface Answer {
  promise: Promise<boolean>;
  resolve(hasCode: boolean): void;
  reject(error: unknown): void;
}

/** Promise.withResolvers, which Node 20 lacks. */
function newAnswer(): Answer {
  let resolve!: (hasCode: boolean) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<boolean>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * Whether recipients have code, asked in batches: the addresses wanted within `batchMs` go in
 * one eth_call, whatever their number, and each answer is kept for `keepMs` (code can appear
 * later: CREATE2, an EIP-7702 delegation). So a payout run to fresh recipients costs one call per
 * batch, not one per intent. Answers past their time are dropped as new ones come: a worker
 * paying fresh recipients for days keeps only the last `keepMs` of them.
 */
export class CodeProbe {
  /** In the order asked, so the oldest answers are first: see dropExpired. */
  private readonly known = new Map<string, { hasCode: Promise<boolean>; until: number }>();
  private waiting = new Map<string, { address: Hex; answer: Answer }>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly client: PublicClient,
    private readonly batchMs: number,
    private readonly keepMs: number,
  ) {}

  hasCode(address: Hex): Promise<boolean> {
    const key = address.toLowerCase();
    const known = this.known.get(key);
    if (known && known.until > Date.now()) return known.hasCode;
    this.dropExpired();
    const answer = newAnswer();
    this.waiting.set(key, { address, answer });
    answer.promise.catch(() => this.known.delete(key));
    this.known.set(key, { hasCode: answer.promise, until: Date.now() + this.keepMs });
    if (this.waiting.size >= maxAddressesPerProbe) this.probe();
    else this.timer ??= setTimeout(() => this.probe(), this.batchMs);
    return answer.promise;
  }

  /**
   * Asks for `addresses` at once, without waiting for others to join: recipients known ahead
   * (a batch's page), so that their signings find the answers kept. Never rejects.
   */
  probeNow(addresses: readonly Hex[]): void {
    for (const address of addresses) this.hasCode(address).catch(() => undefined);
    this.probe();
  }

  /** Answers kept now (for the tests). */
  get kept(): number {
    return this.known.size;
  }

  /** Every answer is kept equally long, so those past their time are the first ones. */
  private dropExpired(): void {
    const now = Date.now();
    for (const [key, { until }] of this.known) {
      if (until > now) break;
      this.known.delete(key);
    }
  }

  private probe(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = [...this.waiting.values()];
    this.waiting = new Map();
    if (batch.length === 0) return;
    this.client
      .call({ data: codeSizesProgram(batch.map((entry) => entry.address)) })
      .then(({ data }) => {
        const sizes = codeSizesOf(data ?? '0x', batch.length);
        batch.forEach((entry, i) => entry.answer.resolve(sizes[i]! > 0));
      })
      .catch((error: unknown) => {
        for (const entry of batch) entry.answer.reject(error);
      });
  }
}
