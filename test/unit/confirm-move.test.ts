import type { TransactionObservation } from '../../chain/chain';
import {
  decideConfirmMove,
  maxUnminedLookGapMs,
  unminedLookGapMs,
  type ConfirmLook,
} from '../../activities/confirm/move';

const minute = 60_000;
const mined = (confirmations: number, succeeded = true): TransactionObservation => ({
  state: 'mined',
  blockNumber: 100n,
  confirmations,
  succeeded,
  gasPaid: 21_000n,
  transfers: [],
});

/** A look at an intent with one attempt (nonce 7) signed `ageMs` ago that saw `seen`. */
const look = (
  seen: TransactionObservation,
  ageMs: number,
  more: Partial<ConfirmLook> = {},
): ConfirmLook => ({
  now: 10 * minute,
  confirmations: 2,
  stuckAfterMs: minute,
  askNodeAfterMs: 3000,
  notedBlock: null,
  baseFeePerGas: 10n,
  attempts: [{ nonce: 7, signedAt: 10 * minute - ageMs, maxFeePerGas: 30n, seen }],
  ...more,
});

const moveOf = (input: ConfirmLook) => decideConfirmMove(input).move;

describe('the move a confirmation look calls for', () => {
  it('finishes on an attempt mined deep enough, whichever attempt it is', () => {
    expect(moveOf(look(mined(2), 1000))).toEqual({ move: 'finish', attempt: 0 });
    const replaced = look({ state: 'not-mined' }, 1000, {
      attempts: [
        { nonce: 7, signedAt: 0, maxFeePerGas: 30n, seen: mined(3, false) },
        { nonce: 7, signedAt: 1, maxFeePerGas: 30n, seen: { state: 'not-mined' } },
      ],
    });
    expect(moveOf(replaced)).toEqual({ move: 'finish', attempt: 0 });
  });

  it('notes a receipt not deep enough yet, and waits', () => {
    expect(moveOf(look(mined(1), 1000))).toEqual({
      move: 'note-receipt',
      attempt: 0,
      confirmations: 1,
    });
  });

  it('waits without asking the node while a transaction is young', () => {
    expect(moveOf(look({ state: 'not-mined' }, 2999))).toEqual({ move: 'wait' });
  });

  it('asks the node once a transaction is not mined for a while', () => {
    expect(moveOf(look({ state: 'not-mined' }, 3000))).toEqual({ move: 'ask-node' });
  });

  it('sees that the line below a pending transaction moves until it is stuck, then unsticks it', () => {
    expect(moveOf(look({ state: 'pending' }, minute - 1))).toEqual({ move: 'repair-line' });
    expect(moveOf(look({ state: 'pending' }, minute))).toEqual({ move: 'unstick' });
  });

  it('outbids at once a transaction whose fee cap is below the base fee, young or pending', () => {
    const outbidBy = (seen: TransactionObservation, ageMs: number) =>
      moveOf({ ...look(seen, ageMs), baseFeePerGas: 31n });
    expect(outbidBy({ state: 'not-mined' }, 1000)).toEqual({ move: 'outbid' });
    expect(outbidBy({ state: 'pending' }, 5000)).toEqual({ move: 'outbid' });
    // At its cap exactly it can still be mined: no bump.
    expect(moveOf({ ...look({ state: 'pending' }, 5000), baseFeePerGas: 30n })).toEqual({
      move: 'repair-line',
    });
    // Mined anyway (the base fee rose after): finished, not outbid.
    expect(moveOf({ ...look(mined(2), 5000), baseFeePerGas: 31n })).toEqual({
      move: 'finish',
      attempt: 0,
    });
  });

  it('reads the nonces for bytes the node lost, and resends while their nonce is unused', () => {
    expect(moveOf(look({ state: 'unknown' }, 5000))).toEqual({ move: 'read-nonces' });
    const unused = look({ state: 'unknown' }, 5000, { nonces: { mined: 7, settled: 7 } });
    expect(moveOf(unused)).toEqual({ move: 'resend' });
  });

  it('signs again at a fresh nonce only once a stranger used ours for good and a last look finds none of ours', () => {
    const shallow = look({ state: 'unknown' }, 5000, { nonces: { mined: 8, settled: 7 } });
    expect(moveOf(shallow)).toEqual({ move: 'wait' });
    const settled = look({ state: 'unknown' }, 5000, { nonces: { mined: 8, settled: 8 } });
    expect(moveOf(settled)).toEqual({ move: 'recheck-attempts' });
    expect(moveOf({ ...settled, rechecked: true })).toEqual({ move: 'reassign' });
  });

  it('says a receipt seen before is gone (reorged), and goes on deciding', () => {
    const reorged = decideConfirmMove(look({ state: 'not-mined' }, 1000, { notedBlock: 99n }));
    expect(reorged).toEqual({ move: { move: 'wait' }, reorged: true });
    expect(decideConfirmMove(look(mined(1), 1000, { notedBlock: 99n })).reorged).toBe(false);
  });
});

describe('the looks at a payment not mined', () => {
  it('come at the chain’s pace at first, then after one and a half times the payment’s wait, at most five minutes apart', () => {
    expect(unminedLookGapMs(0, 1000)).toBe(1000);
    expect(unminedLookGapMs(600, 1000)).toBe(1000);
    expect(unminedLookGapMs(60_000, 1000)).toBe(90_000);
    expect(unminedLookGapMs(4 * 60 * minute, 1000)).toBe(maxUnminedLookGapMs);
  });

  it('number 13 over 30 minutes unmined, where one a second would be 1,800', () => {
    let looks = 0;
    for (let at = 0; at < 30 * minute; at += unminedLookGapMs(at, 1000)) looks++;
    expect(looks).toBe(13);
  });
});
