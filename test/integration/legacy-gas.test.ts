import { parseTransaction } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createEvmChain } from '../../chain/evm-chain';
import { evmChainSettings } from '../../workers/chain-settings';
import { useWorld } from '../harness/test-world';

// A chain before London (no EIP-1559): its blocks carry no base fee and it takes type-0 only.
const world = useWorld({ anvil: { hardfork: 'berlin' } });

describe('a chain without EIP-1559 (anvil on berlin, GAS_PRICING=legacy)', () => {
  it('signs type-0 transactions at the node’s gasPrice; a stuck one is replaced at its nonce with gasPrice bumped, and only one is mined', async () => {
    expect((await world.testClient.getBlock()).baseFeePerGas ?? null).toBeNull();
    const chain = createEvmChain(
      evmChainSettings(world.config({ GAS_PRICING: 'legacy', REPLACEMENT_BUMP_PERCENT: '15' })),
    );
    const wallet = world.wallets[0]!;
    const to = privateKeyToAccount(generatePrivateKey()).address;
    await world.testClient.setAutomine(false);
    try {
      const plan = await chain.planTransfer({ from: wallet, to, value: 1000n });
      expect(plan.maxFeePerGas).toBe(await world.testClient.getGasPrice());
      expect(plan.maxPriorityFeePerGas).toBe(0n);
      const nonce = await chain.pendingNonce(wallet);
      const first = await chain.signTransfer(plan, nonce);
      expect(parseTransaction(first.rawTx)).toMatchObject({
        type: 'legacy',
        chainId: world.anvil.chainId,
        nonce,
        gasPrice: plan.maxFeePerGas,
      });
      expect(await chain.broadcast(first)).toBe('sent');

      const bumped = await chain.planReplacement(plan);
      expect(bumped.maxFeePerGas).toBe((plan.maxFeePerGas * 115n + 99n) / 100n);
      const second = await chain.signTransfer(bumped, nonce);
      expect(parseTransaction(second.rawTx)).toMatchObject({
        type: 'legacy',
        nonce,
        gasPrice: bumped.maxFeePerGas,
      });
      // The node takes it as a replacement of the first (same nonce, a higher price).
      expect(await chain.broadcast(second)).toBe('sent');
      await world.testClient.mine({ blocks: 1 });

      const receipt = await world.testClient.getTransactionReceipt({ hash: second.txHash });
      expect(receipt).toMatchObject({ status: 'success', effectiveGasPrice: bumped.maxFeePerGas });
      await expect(
        world.testClient.getTransactionReceipt({ hash: first.txHash }),
      ).rejects.toThrow();
      expect(await world.testClient.getBalance({ address: to })).toBe(1000n);
    } finally {
      await world.testClient.setAutomine(true);
    }
  });
});
