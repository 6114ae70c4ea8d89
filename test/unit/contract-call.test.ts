import { encodeFunctionData, parseAbi, zeroAddress } from 'viem';
import { contractCallSchema, selectorOf, selectorOfFunction } from '../../domain/contract-call';
import {
  PolicyRule,
  policyBreach,
  noPolicy,
  type PaymentPolicy,
} from '../../domain/payment-policy';

const issuesOf = (input: unknown) =>
  contractCallSchema
    .safeParse(input)
    .error?.issues.map((issue) => [issue.path.join('.'), issue.message]);

const abi = parseAbi([
  'function deposit(bytes32 ref) payable',
  'function pay(address to, uint256 amount, bool urgent)',
  'function many(uint16[2] pair, (address who, int64 delta)[] moves)',
]);
const alice = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

describe('contract calls as a request gives them', () => {
  it('encodes a signature and JSON arguments as viem does, integers given as digits', () => {
    const parsed = contractCallSchema.parse({
      abi: 'function pay(address to, uint256 amount, bool urgent)',
      args: [alice, '1000000000000000000000000000000', true],
    });
    expect(parsed.data).toBe(
      encodeFunctionData({
        abi,
        functionName: 'pay',
        args: [alice, 10n ** 30n, true],
      }),
    );
  });

  it('takes a bare signature as calls allow --function does: deposit(bytes32) is a function', () => {
    const ref = `0x${'47'.repeat(32)}` as const;
    const parsed = contractCallSchema.parse({ abi: 'deposit(bytes32)', args: [ref] });
    expect(parsed.data).toBe(encodeFunctionData({ abi, functionName: 'deposit', args: [ref] }));
    expect(issuesOf({ abi: 'deposit(bytes33)', args: [ref] })).toEqual([
      [
        'abi',
        expect.stringMatching(/^"deposit\(bytes33\)" does not parse as a function signature/),
      ],
    ]);
  });

  it('takes JSON ABI items, a function named among several, arrays and tuples by name or position', () => {
    const parsed = contractCallSchema.parse({
      abi: abi.map((item) => ({ ...item })),
      function: 'many',
      args: [
        [1, '2'],
        [{ who: alice, delta: '-5' }, [zeroAddress, 7]],
      ],
    });
    expect(parsed.data).toBe(
      encodeFunctionData({
        abi,
        functionName: 'many',
        args: [
          [1, 2],
          [
            { who: alice, delta: -5n },
            { who: zeroAddress, delta: 7n },
          ],
        ],
      }),
    );
  });

  it('takes call data as it is, lower-cased, with at least a selector', () => {
    expect(contractCallSchema.parse({ data: '0xB214FAA5' }).data).toBe('0xb214faa5');
    expect(issuesOf({ data: '0xb214fa' })).toEqual([
      ['data', expect.stringContaining('at least the 4-byte function selector')],
    ]);
  });

  it('names what is wrong: the field and the argument', () => {
    expect(issuesOf({})).toEqual([['', expect.stringContaining('exactly one')]]);
    expect(issuesOf({ data: '0xb214faa5', abi: 'function x()' })).toEqual([
      ['', expect.stringContaining('exactly one')],
    ]);
    expect(issuesOf({ abi: 'function deposit(bytes33 ref)' })).toEqual([
      ['abi', expect.stringContaining('does not parse')],
    ]);
    expect(issuesOf({ abi: 'function deposit(bytes32 ref)', args: [] })).toEqual([
      ['args', 'deposit takes 1 argument(s) (bytes32), 0 given'],
    ]);
    expect(issuesOf({ abi: 'function deposit(bytes32 ref)', args: [12] })).toEqual([
      ['args.0', 'a bytes32 must be a 0x-prefixed hex string'],
    ]);
    expect(issuesOf({ abi: 'function deposit(bytes32 ref)', args: ['0x1234'] })).toEqual([
      ['args', expect.stringContaining('size')],
    ]);
    expect(
      issuesOf({
        abi: abi.map((item) => ({ ...item })),
        function: 'many',
        args: [[1, 2], [{ who: 'me', delta: '1' }]],
      }),
    ).toEqual([['args.1.0.who', expect.stringContaining('an address')]]);
    expect(
      issuesOf({
        abi: 'function pay(address to, uint256 amount, bool urgent)',
        args: [alice, 1.5, true],
      }),
    ).toEqual([['args.1', 'a uint256 must be a whole number, as a string of digits']]);
    expect(issuesOf({ abi: abi.map((item) => ({ ...item })), args: [] })).toEqual([
      ['abi', 'call.abi holds several functions: name one in call.function'],
    ]);
    expect(
      issuesOf({ abi: 'function deposit(bytes32 ref)', function: 'withdraw', args: [] }),
    ).toEqual([['abi', 'call.abi has no function named "withdraw"']]);
  });

  it('names a function for a policy by selector or signature', () => {
    expect(selectorOfFunction('deposit(bytes32)')).toBe('0xb214faa5');
    expect(selectorOfFunction('function deposit(bytes32 ref) payable')).toBe('0xb214faa5');
    expect(selectorOfFunction('0xB214FAA5')).toBe('0xb214faa5');
    expect(selectorOfFunction('deposit(bytes33)')).toBeUndefined();
    expect(selectorOfFunction('not a function')).toBeUndefined();
    expect(selectorOf('0xB214FAA5000000')).toBe('0xb214faa5');
  });
});

describe('a call under its tenant’s policy', () => {
  const policy: PaymentPolicy = { ...noPolicy('acme'), version: 3, allowListChains: [1] };
  const call = { chainId: 1, contract: alice, selector: '0xb214faa5' as const, label: 'vault' };
  const payment = (amount: bigint) => ({
    chainId: 1,
    book: 'native:1',
    to: alice,
    amount,
    selector: '0xb214faa5' as const,
  });

  it('needs its function allowed (the allow-list of recipients is not its list)', () => {
    expect(policyBreach(policy, payment(1n), {}, {})).toEqual({ rule: PolicyRule.callNotAllowed });
    expect(policyBreach(policy, payment(1n), { call }, {})).toBeUndefined();
  });

  it('sends at most its bound, and a denied contract is never called', () => {
    const bounded = { call: { ...call, maxValue: 10n } };
    expect(policyBreach(policy, payment(10n), bounded, {})).toBeUndefined();
    expect(policyBreach(policy, payment(11n), bounded, {})).toEqual({
      rule: PolicyRule.callValueLimit,
      limit: 10n,
      wouldBe: 11n,
    });
    const denied = { chainId: 1, address: alice, list: 'deny' as const, label: 'x' };
    expect(policyBreach(policy, payment(1n), { call, recipient: denied }, {})).toEqual({
      rule: PolicyRule.recipientDenied,
    });
  });
});
