import { type InvalidIntentError } from '../../domain/errors';
import { ErrorName } from '../../domain/error-catalogue';
import { parseNewIntent } from '../../domain/intent-request';

const valid = {
  tenantId: 'acme',
  chainId: 31337,
  from: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  amount: '250000000000000000',
};

function issuesOf(input: unknown): { field: string; message: string }[] {
  try {
    parseNewIntent(input);
  } catch (error) {
    expect((error as Error).name).toBe(ErrorName.invalidIntent);
    return (error as InvalidIntentError).details.issues;
  }
  throw new Error('expected the request to be rejected');
}

describe('parseNewIntent', () => {
  it('accepts a well-formed request and normalises it', () => {
    const parsed = parseNewIntent({ ...valid, to: valid.to.toLowerCase() });
    expect(parsed).toEqual({ ...valid, asset: 'native', amount: 250000000000000000n });
  });

  it('names a token by its alias or address; anything else is refused', () => {
    expect(parseNewIntent({ ...valid, asset: 'USDC.e' }).asset).toBe('USDC.e');
    expect(issuesOf({ ...valid, asset: 'not an asset!' })).toEqual([
      { field: 'asset', message: expect.stringContaining('a token alias') },
    ]);
  });

  it.each([
    ['zero', '0', 'greater than zero'],
    ['negative', '-5', 'whole number'],
    ['fractional', '1.5', 'whole number'],
    ['exponent', '1e18', 'whole number'],
    ['leading zero', '007', 'whole number'],
    ['empty', '', 'whole number'],
    ['wider than 256 bits', (2n ** 256n).toString(), '256 bits'],
  ])('rejects a %s amount', (_, amount, message) => {
    expect(issuesOf({ ...valid, amount })).toEqual([
      { field: 'amount', message: expect.stringContaining(message) },
    ]);
  });

  it('rejects a JSON number amount, which cannot hold wei exactly', () => {
    expect(issuesOf({ ...valid, amount: 1e18 })[0]?.field).toBe('amount');
  });

  it.each([
    ['too short', '0x1234'],
    ['not hex', '0xZZ97970C51812dc3A010C7d01b50e0d17dc79C8'],
    ['a bad checksum', '0x70997970c51812dc3a010c7d01b50e0d17dc79C8'],
    ['the zero address', '0x0000000000000000000000000000000000000000'],
  ])('rejects a recipient that is %s', (_, to) => {
    expect(issuesOf({ ...valid, to }).map((issue) => issue.field)).toEqual(['to']);
  });

  it('names every bad field at once', () => {
    const fields = issuesOf({ tenantId: 'Not Valid', chainId: -1, from: 'x', to: 'y', amount: '0' })
      .map((issue) => issue.field)
      .sort();
    expect(fields).toEqual(['amount', 'chainId', 'from', 'tenantId', 'to']);
  });

  it('rejects unknown fields and non-objects', () => {
    expect(issuesOf({ ...valid, memo: 'x' })[0]?.message).toMatch(/memo/);
    expect(issuesOf(null)).toHaveLength(1);
    expect(issuesOf('a string')).toHaveLength(1);
  });
});
