import { ApplicationFailure, sleep } from '@temporalio/workflow';
import { ErrorName } from '../../domain/error-catalogue';
import type { PaymentIntentInput } from './input';

/** Past this wait for notBefore the run leaves its build first, as before a wait for a person. */
export const longNotBeforeMs = 60_000;

/** The intent's validUntil passed: the run ends `expired` (closeIntent), nothing signed. */
const expired = (validUntil: number) =>
  ApplicationFailure.create({
    type: ErrorName.deadlinePassed,
    message: `valid until ${new Date(validUntil).toISOString()}: not signed after that`,
    nonRetryable: true,
  });

/** Throws the run's end once its validUntil has passed (workflow time). */
export function refuseIfExpired({ validUntil }: Pick<PaymentIntentInput, 'validUntil'>): void {
  if (validUntil !== undefined && Date.now() >= validUntil) throw expired(validUntil);
}

/** How long the run waits for its notBefore (0: it may go now). */
export const notBeforeWaitMs = ({ notBefore }: Pick<PaymentIntentInput, 'notBefore'>): number =>
  notBefore === undefined ? 0 : Math.max(0, notBefore - Date.now());

/**
 * A wait between permit requests, cut at validUntil: past it the run ends instead of asking
 * again.
 */
export async function sleepWithin(ms: number, validUntil: number | undefined): Promise<void> {
  const leftMs = validUntil === undefined ? Infinity : validUntil - Date.now();
  if (leftMs > ms) return sleep(ms);
  if (leftMs > 0) await sleep(leftMs);
  refuseIfExpired({ validUntil });
}

/**
 * Waits for the run's notBefore on a timer, holding no permit (a long wait is one the run's build
 * need not stay up for: `waits` moves it off), then refuses to go on past its validUntil.
 */
export async function waitForNotBefore(
  input: Pick<PaymentIntentInput, 'notBefore' | 'validUntil'>,
  waits: { enter(): Promise<void> },
): Promise<void> {
  const notBeforeMs = notBeforeWaitMs(input);
  if (notBeforeMs > longNotBeforeMs) await waits.enter();
  if (notBeforeMs > 0) await sleep(notBeforeMs);
  refuseIfExpired(input);
}
