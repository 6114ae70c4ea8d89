import { chooseWallet, type WalletLane } from '../../domain/wallet-choice';

const lane = (address: string, pending: number, balance: bigint, committed = 0n): WalletLane => ({
  address: address as `0x${string}`,
  pending,
  balance,
  committed,
});

describe('choosing the wallet of an intent that named none', () => {
  it('takes the wallet with the fewest nonces in flight', () => {
    const lanes = [lane('0xa', 3, 100n), lane('0xb', 1, 100n), lane('0xc', 2, 100n)];
    expect(chooseWallet(lanes, 10n)?.address).toBe('0xb');
  });

  it('breaks ties by the configured order', () => {
    const lanes = [lane('0xa', 1, 100n), lane('0xb', 1, 100n)];
    expect(chooseWallet(lanes, 10n)?.address).toBe('0xa');
  });

  it('skips a wallet that cannot pay on top of what it has committed', () => {
    const lanes = [lane('0xa', 0, 100n, 95n), lane('0xb', 5, 100n)];
    expect(chooseWallet(lanes, 10n)?.address).toBe('0xb');
  });

  it('takes a wallet that can pay exactly', () => {
    expect(chooseWallet([lane('0xa', 0, 100n, 90n)], 10n)?.address).toBe('0xa');
  });

  it('finds none when no wallet can pay', () => {
    expect(chooseWallet([lane('0xa', 0, 9n), lane('0xb', 0, 100n, 91n)], 10n)).toBeUndefined();
    expect(chooseWallet([], 1n)).toBeUndefined();
  });

  it('skips a wallet blocked by an intent in review, however empty its lane', () => {
    const lanes = [{ ...lane('0xa', 0, 100n), blockedBy: 'pi_1' }, lane('0xb', 7, 100n)];
    expect(chooseWallet(lanes, 10n)?.address).toBe('0xb');
    expect(chooseWallet([lanes[0]!], 10n)).toBeUndefined();
  });
});
