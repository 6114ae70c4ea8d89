import { decideBlockSightings, type BlockSightingsInput } from '../../domain/block-sightings';

const tx = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const;
const input = (more: Partial<BlockSightingsInput> = {}): BlockSightingsInput => ({
  mined: [],
  inFlight: [
    { intentId: 'pi_a', txHash: tx(1), maxFeePerGas: 50n },
    { intentId: 'pi_b', txHash: tx(2), maxFeePerGas: 20n },
  ],
  baseFeePerGas: 30n,
  toldOutbid: new Set(),
  ...more,
});

describe('what the new blocks concern (the block follower)', () => {
  it('wakes each payment a block mined, once', () => {
    const seen = decideBlockSightings(input({ mined: ['pi_a', 'pi_a'], baseFeePerGas: 10n }));
    expect(seen.wake).toEqual(['pi_a']);
    expect(seen.toldOutbid.size).toBe(0);
  });

  it('wakes a payment whose newest fee cap the base fee passed, once per transaction', () => {
    const first = decideBlockSightings(input());
    expect(first.wake).toEqual(['pi_b']);
    expect([...first.toldOutbid]).toEqual([tx(2)]);
    const again = decideBlockSightings(input({ toldOutbid: first.toldOutbid }));
    expect(again.wake).toEqual([]);
    // Its replacement (a new hash) under a higher base fee still is told.
    const replaced = decideBlockSightings(
      input({
        toldOutbid: first.toldOutbid,
        inFlight: [{ intentId: 'pi_b', txHash: tx(3), maxFeePerGas: 40n }],
        baseFeePerGas: 45n,
      }),
    );
    expect(replaced.wake).toEqual(['pi_b']);
    expect([...replaced.toldOutbid]).toEqual([tx(3)]);
  });

  it('forgets what is no longer in flight or no longer outbid', () => {
    const seen = decideBlockSightings(
      input({ toldOutbid: new Set([tx(2), tx(9)]), baseFeePerGas: 10n }),
    );
    expect(seen.wake).toEqual([]);
    expect(seen.toldOutbid.size).toBe(0);
  });
});
