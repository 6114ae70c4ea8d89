import { decimalAmountProblem } from '../../cli/decimal-amount';

describe('a decimal amount as a person types it', () => {
  it.each([['25'], ['0.5'], [' 1.25 '], ['0.000000000000000001']])('takes %s', (value) => {
    expect(decimalAmountProblem(value)).toBeUndefined();
  });

  it.each([
    ['-5', 'must be positive (got "-5")'],
    ['-0.5', 'must be positive (got "-0.5")'],
    ['0', 'must be positive (got "0")'],
    ['0.00', 'must be positive (got "0.00")'],
    ['lots', 'must be a decimal amount like 25 or 0.5 (got "lots")'],
    ['1e3', 'must be a decimal amount like 25 or 0.5 (got "1e3")'],
    ['0.0000000000000000001', 'at most 18 decimals (got "0.0000000000000000001")'],
  ])('says what is wrong with %s', (value, problem) => {
    expect(decimalAmountProblem(value)).toBe(problem);
  });

  it("counts decimals against the asset's", () => {
    expect(decimalAmountProblem('1.1234567', 6)).toBe('at most 6 decimals (got "1.1234567")');
  });
});
