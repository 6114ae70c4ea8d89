import { privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import { depositAddressOf, depositSalt } from '../../chain/deposit-addresses';
import { deployDepositFactory } from './stack/deposit-factory';
import { deployerClient } from './stack/solidity';
import { waitFor } from './stack/wait-for';
import { startScanAt } from '../../store/deposit-scans';
import { ensureDepositAddress } from '../../store/deposit-addresses';
import type { TestWorld } from './test-world';

/**
 * Deposits as a worker process runs them: a factory owned by a treasury (the world's next dev
 * account after its hot wallets), the worker's settings to scan, credit and sweep every second.
 */
export async function depositWorld(world: TestWorld, taskQueue: string) {
  const treasuryKey = world.anvil.keys[world.wallets.length]!;
  const treasury = privateKeyToAccount(treasuryKey).address;
  const factory = await deployDepositFactory(world.anvil, treasury);
  return { treasury, factory, env: depositEnv(world, taskQueue, factory) };
}

/** A worker's settings to scan, credit and sweep every second with `factory`. */
export const depositEnv = (world: TestWorld, taskQueue: string, factory: Hex) => {
  const treasuryKey = world.anvil.keys[world.wallets.length]!;
  return {
    TASK_QUEUE: taskQueue,
    HOT_WALLET_KEYS: [...world.walletKeys, treasuryKey].join(','),
    TREASURY_WALLET: privateKeyToAccount(treasuryKey).address,
    TOP_UP_SWEEP_MS: '0',
    DEPOSIT_FACTORY: factory,
    DEPOSIT_SCAN_MS: '1000',
    DEPOSIT_SWEEP_MS: '1000',
    // A sweep a dying worker wrote is started by the next one's orphan sweep.
    ORPHAN_SWEEP_MS: '1000',
  };
};

/** The tenant's address by default on the world's chain, handed out now (its scan starts here). */
export async function handOutAddress(world: TestWorld, factory: Hex, tenantId: string) {
  const chainId = world.anvil.chainId;
  const salt = depositSalt(tenantId, chainId, 0);
  const address = depositAddressOf(factory, salt);
  const now = new Date();
  await ensureDepositAddress(
    world.database.kysely,
    { chainId, address, tenantId, index: 0, salt, factory },
    now,
  );
  const head = await world.testClient.getBlockNumber({ cacheTime: 0 });
  await startScanAt(world.database.kysely, chainId, head, now);
  return address;
}

/** From anvil's last account (never a hot wallet or the treasury), the receipt awaited. */
export async function sendNative(world: TestWorld, to: Hex, value: bigint) {
  const sender = deployerClient(world.anvil);
  return sender.waitForTransactionReceipt({ hash: await sender.sendTransaction({ to, value }) });
}

/** Waits for `condition`, a block mined at each look meanwhile (automine makes none by itself). */
export async function mineUntil(
  world: TestWorld,
  condition: () => Promise<boolean>,
  what: string,
  timeoutMs = 60_000,
): Promise<void> {
  await waitFor(
    async () => {
      if (await condition()) return true;
      await world.testClient.mine({ blocks: 1 });
      return false;
    },
    what,
    timeoutMs,
  );
}
