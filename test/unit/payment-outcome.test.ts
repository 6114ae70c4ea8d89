import { judgeMined, reasonOfOutcome, type MinedFacts } from '../../domain/payment-outcome';

const token = '0x00000000000000000000000000000000000000aa';
const facts = (overrides: Partial<MinedFacts>): MinedFacts => ({
  asset: token,
  amount: 1000n,
  cancel: false,
  succeeded: true,
  delivered: 1000n,
  feeOnTransfer: false,
  ...overrides,
});

describe('a mined payment judged by what moved', () => {
  it('a native transfer that succeeded is paid, one that reverted is not, a cancel is a cancel', () => {
    expect(judgeMined(facts({ asset: 'native', delivered: 0n }))).toEqual({ state: 'confirmed' });
    expect(judgeMined(facts({ asset: 'native', succeeded: false }))).toEqual({ state: 'reverted' });
    expect(judgeMined(facts({ cancel: true }))).toEqual({ state: 'cancelled' });
  });

  it('a token is paid by its Transfer logs: all of it, nothing (status 1 and false), or a reverted one', () => {
    expect(judgeMined(facts({}))).toEqual({ state: 'confirmed' });
    expect(judgeMined(facts({ delivered: 0n }))).toEqual({ state: 'moved-nothing' });
    expect(judgeMined(facts({ succeeded: false, delivered: 0n }))).toEqual({ state: 'reverted' });
  });

  it('less delivered: paid with the delivered amount for a fee-on-transfer token, else a person looks', () => {
    expect(judgeMined(facts({ delivered: 990n, feeOnTransfer: true }))).toEqual({
      state: 'confirmed',
      delivered: 990n,
    });
    const short = judgeMined(facts({ delivered: 990n }));
    expect(short).toEqual({ state: 'mismatch', delivered: 990n });
    expect(reasonOfOutcome(short, 1000n)).toEqual({
      code: 'token_shortfall',
      text: expect.stringMatching(/^TokenShortfall: .*990 of 1000 .*\(10 short\)/),
    });
    expect(reasonOfOutcome(judgeMined(facts({ delivered: 1001n })), 1000n)).toEqual({
      code: 'token_overdelivered',
      text: expect.stringMatching(/^TokenOverdelivered/),
    });
  });
});
