import { parseGwei, parseTransaction } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createEvmChain } from '../../chain/evm-chain';
import { evmChainSettings } from '../../workers/chain-settings';
import { useWorld } from '../harness/test-world';

/**
 * What a chain's fee family changes in the bids, against a real node (anvil). Tier: test; about
 * 2 s (anvil only).
 */
const world = useWorld({});

describe('a chain with a tip floor (Polygon PoS: polygon-pos preset, minPriorityFeeGwei)', () => {
  it('bids at least the floor whatever the node suggests, and the transaction is mined', async () => {
    const settings = evmChainSettings(world.config({ MAX_PRIORITY_FEE_GWEI: '100' }));
    const floor = parseGwei('30');
    const chain = createEvmChain({ ...settings, family: 'polygon', minPriorityFeePerGas: floor });
    const wallet = world.wallets[0]!;
    const plan = await chain.planTransfer({
      from: wallet,
      to: privateKeyToAccount(generatePrivateKey()).address,
      value: 1000n,
    });
    expect(await world.testClient.estimateMaxPriorityFeePerGas()).toBeLessThan(floor);
    expect(plan.maxPriorityFeePerGas).toBe(floor);
    expect(plan.maxFeePerGas).toBeGreaterThanOrEqual(floor);
    const signed = await chain.signTransfer(plan, await chain.pendingNonce(wallet));
    expect(parseTransaction(signed.rawTx)).toMatchObject({ maxPriorityFeePerGas: floor });
    expect(await chain.broadcast(signed)).toBe('sent');
    const receipt = await world.testClient.waitForTransactionReceipt({ hash: signed.txHash });
    expect(receipt.status).toBe('success');
    expect(chain.family).toBe('polygon');
  });
});
