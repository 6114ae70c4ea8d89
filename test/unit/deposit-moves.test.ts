import { parseEther } from 'viem';
import { blocksToRead, classifyTransfer, decideAtFinality } from '../../domain/deposit-moves';

const usdc = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const tokens = new Map([[usdc, { decimals: 6 }]]);
const dust = { nativeWei: parseEther('0.001'), tokens: '0.5' };

describe('which blocks a deposit scan reads', () => {
  it('on from the last one read, at most maxBlocks', () => {
    expect(blocksToRead(100n, 1000n, 50)).toEqual({ from: 100n, to: 149n });
  });
  it('up to the head when it is nearer', () => {
    expect(blocksToRead(100n, 120n, 50)).toEqual({ from: 100n, to: 120n });
  });
  it('from the head when nothing was read yet', () => {
    expect(blocksToRead(undefined, 120n, 50)).toEqual({ from: 120n, to: 120n });
  });
  it('none when the scan is ahead of the head', () => {
    expect(blocksToRead(121n, 120n, 50)).toBeUndefined();
  });
});

describe('what a transfer into a deposit address is', () => {
  it('the native coin at or above its dust mark: detected', () => {
    expect(classifyTransfer({ asset: 'native', amount: parseEther('0.001') }, tokens, dust)).toBe(
      'detected',
    );
  });
  it('the native coin below its dust mark: dust', () => {
    expect(classifyTransfer({ asset: 'native', amount: parseEther('0.0009') }, tokens, dust)).toBe(
      'dust',
    );
  });
  it('a token the relayer does not know: unregistered', () => {
    const unknown = '0x0000000000000000000000000000000000000bad';
    expect(classifyTransfer({ asset: unknown, amount: 10n ** 18n }, tokens, dust)).toBe(
      'unregistered',
    );
  });
  it('a registered token below its mark in its own decimals: dust; at it: detected', () => {
    expect(classifyTransfer({ asset: usdc, amount: 499_999n }, tokens, dust)).toBe('dust');
    expect(
      classifyTransfer(
        { asset: usdc.toUpperCase().replace('0X', '0x'), amount: 500_000n },
        tokens,
        dust,
      ),
    ).toBe('detected');
  });
  it('without dust marks everything registered is detected', () => {
    expect(classifyTransfer({ asset: 'native', amount: 1n }, tokens, undefined)).toBe('detected');
  });
});

describe('a deposit at finality, read again from its receipt', () => {
  const deposit = {
    logIndex: 2,
    address: '0xAbC0000000000000000000000000000000000001',
    asset: usdc,
    amount: 7_000_000n,
    blockHash: '0xb1',
  };
  const transfer = {
    txHash: '0xt',
    position: 2,
    to: deposit.address.toLowerCase(),
    asset: usdc,
    amount: 7_000_000n,
  };
  const receipt = (blockNumber: bigint, blockHash: string, transfers = [transfer]) => ({
    blockNumber,
    blockHash,
    transfers,
  });

  it('the same transfer in the same block: credited', () => {
    expect(decideAtFinality(deposit, receipt(10n, '0xb1'), 12n)).toEqual({ move: 'credit' });
  });
  it('its transaction gone: dropped', () => {
    expect(decideAtFinality(deposit, undefined, 12n)).toEqual({ move: 'drop' });
  });
  it('the transaction there but not this transfer (another amount, position or recipient): dropped', () => {
    for (const other of [
      { ...transfer, amount: 6_000_000n },
      { ...transfer, position: 3 },
      { ...transfer, to: '0x0000000000000000000000000000000000000002' },
    ]) {
      expect(decideAtFinality(deposit, receipt(10n, '0xb1', [other]), 12n)).toEqual({
        move: 'drop',
      });
    }
  });
  it('moved by a reorg to a block not final yet: its row follows, the credit waits', () => {
    expect(decideAtFinality(deposit, receipt(13n, '0xb2'), 12n)).toEqual({
      move: 'wait',
      movedTo: { blockNumber: 13n, blockHash: '0xb2' },
    });
  });
  it('moved by a reorg to a block that is final too: credited at its new block', () => {
    expect(decideAtFinality(deposit, receipt(11n, '0xb2'), 12n)).toEqual({
      move: 'credit',
      movedTo: { blockNumber: 11n, blockHash: '0xb2' },
    });
  });
});
