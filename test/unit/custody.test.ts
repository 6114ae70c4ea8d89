import {
  isCustodyMove,
  isDepositSweep,
  isTopUp,
  operatorOwner,
  topUpAmount,
} from '../../domain/custody';

describe('top-ups', () => {
  const marks = { lowBalanceWei: 50n, topUpTargetWei: 200n };

  it('bring a wallet below its mark back up to the target, and leave one at or above it', () => {
    expect(topUpAmount(0n, marks)).toBe(200n);
    expect(topUpAmount(49n, marks)).toBe(151n);
    expect(topUpAmount(50n, marks)).toBeUndefined();
    expect(topUpAmount(500n, marks)).toBeUndefined();
  });

  it('send nothing when the target is not above the balance (a misconfiguration is not a refund)', () => {
    expect(topUpAmount(10n, { lowBalanceWei: 100n, topUpTargetWei: 10n })).toBeUndefined();
    expect(topUpAmount(10n, { lowBalanceWei: 100n, topUpTargetWei: 5n })).toBeUndefined();
  });

  it('are the operators’ intents, never a tenant’s', () => {
    expect(isTopUp({ tenantId: operatorOwner })).toBe(true);
    expect(isTopUp({ tenantId: 'acme' })).toBe(false);
  });

  it('are told from deposit sweeps by their call: both are custody moves', () => {
    const sweep = { tenantId: operatorOwner, callData: '0x6e5b' };
    expect(isDepositSweep(sweep)).toBe(true);
    expect(isTopUp(sweep)).toBe(false);
    expect(isCustodyMove(sweep)).toBe(true);
    expect(isDepositSweep({ tenantId: 'acme', callData: '0x6e5b' })).toBe(false);
    expect(isDepositSweep({ tenantId: operatorOwner, callData: null })).toBe(false);
  });
});
