import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createEvmChain } from '../../chain/evm-chain';
import { evmChainSettings } from '../../workers/chain-settings';
import { sendTransfers } from '../harness/pending-transfers';
import { useWorld } from '../harness/test-world';

const world = useWorld({ proxy: true, wallets: 1 });
const recipient = () => privateKeyToAccount(generatePrivateKey()).address;

/** A chain of the relayer's, through the proxy (which counts its calls). */
const relayerChain = () => createEvmChain(evmChainSettings(world.config()));

describe('the watched chain: reads grow with blocks, not with intents', () => {
  it('five looks at five transactions of one block: one head read, one receipts read', async () => {
    const chain = relayerChain();
    await world.testClient.setAutomine(false);
    try {
      const signedAt = new Date();
      const transfers = await sendTransfers(chain, world.wallets[0]!, 5);
      expect(transfers.map((transfer) => transfer.outcome)).toEqual(Array(5).fill('sent'));
      const sent = transfers.map((transfer) => transfer.txHash);
      await world.testClient.mine({ blocks: 1 });
      // Past a look's age by the clock the head's age is read with: a timer may fire a little early.
      const stale = Date.now() + chain.headMaxAgeMs + 1;
      while (Date.now() < stale)
        await new Promise((resolve) => setTimeout(resolve, stale - Date.now()));
      world.proxy!.calls.splice(0);
      const seen = await Promise.all(sent.map((txHash) => chain.observe(txHash, signedAt)));
      expect(seen.map((s) => s.state)).toEqual(Array(5).fill('mined'));
      expect(world.proxy!.countsByMethod()).toEqual({
        eth_getBlockByNumber: 1,
        eth_getBlockReceipts: 1,
      });
    } finally {
      await world.testClient.setAutomine(true);
    }
  });

  it('plain transfers to fresh addresses: one code probe for the batch, no gas estimate', async () => {
    const chain = relayerChain();
    const contract = recipient();
    await world.testClient.setCode({ address: contract, bytecode: '0x60006000f3' });
    world.proxy!.calls.splice(0);
    const plans = await Promise.all(
      [recipient(), recipient(), recipient(), contract].map((to) =>
        chain.planTransfer({ from: world.wallets[0]!, to, value: 1n }),
      ),
    );
    expect(plans.slice(0, 3).map((plan) => plan.gas)).toEqual([21_000n, 21_000n, 21_000n]);
    const counts = world.proxy!.countsByMethod();
    expect(counts.eth_call).toBe(1);
    // Only the recipient with code gets an estimate.
    expect(counts.eth_estimateGas).toBe(1);
    expect(counts.eth_getCode).toBeUndefined();
  });

  it('call data to an address without code is estimated, not given a plain transfer’s gas, and is mined', async () => {
    const chain = relayerChain();
    const codeless = recipient();
    // deposit(bytes32) with a reference: what a contract call to a mistyped address sends.
    const data = `0xb214faa5${'ab'.repeat(32)}` as const;
    world.proxy!.calls.splice(0);
    const plan = await chain.planTransfer({
      from: world.wallets[0]!,
      to: codeless,
      value: 0n,
      data,
    });
    expect(world.proxy!.countsByMethod().eth_estimateGas).toBe(1);
    expect(plan.gas).toBeGreaterThan(21_000n);
    const nonce = await chain.pendingNonce(world.wallets[0]!);
    const signed = await chain.signTransfer(plan, nonce);
    expect(await chain.broadcast(signed)).toBe('sent');
    // anvil mines a sent transaction on its own task, a moment after the send's answer.
    const receipt = await world.testClient.waitForTransactionReceipt({
      hash: signed.txHash,
      pollingInterval: 50,
    });
    expect(receipt).toMatchObject({ status: 'success', gasUsed: plan.gas });
  });
});
