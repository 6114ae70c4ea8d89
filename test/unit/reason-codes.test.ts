import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ErrorType } from '../../domain/error-catalogue';
import { ReasonCode, reasonCodeOfErrorType } from '../../domain/reason-codes';

describe('reason codes', () => {
  it("are an error's name in snake case for a step that failed with it", () => {
    expect(reasonCodeOfErrorType(ErrorType.noFundedWallet)).toBe('no_funded_wallet');
    expect(reasonCodeOfErrorType(ErrorType.feeAboveCap)).toBe('fee_above_cap');
    expect(reasonCodeOfErrorType('ConfirmationTimeout')).toBe(ReasonCode.confirmationTimeout);
    // No error's code is one of the outcome codes under another meaning.
    const outcomes = new Set<string>(Object.values(ReasonCode));
    expect(
      Object.values(ErrorType).filter((type) => outcomes.has(reasonCodeOfErrorType(type))),
    ).toEqual([ErrorType.walletBlocked]);
  });

  it('are each named in docs/api.md', () => {
    const docs = readFileSync(resolve(__dirname, '../../docs/api.md'), 'utf8');
    expect(Object.values(ReasonCode).filter((code) => !docs.includes(`\`${code}\``))).toEqual([]);
  });
});
