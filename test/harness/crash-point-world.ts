import { parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { terminalStatuses } from '../../domain/intent';
import { openTopUps } from '../../store/top-ups';
import type { TestWorld } from './test-world';

type World = TestWorld;

/**
 * The world a crash-point run needs: a proxy, Redis (the quota's line and the chain's reader are
 * shared by the two processes, as in a fleet), three wallets, and these tenants.
 */
export const crashPointWorld = {
  proxy: true,
  redis: true,
  wallets: 3,
  tenants: { acme: '100', globex: '100', thin: '0.0035', initech: '100' },
};
export const deposits = {
  acme: parseEther('100'),
  globex: parseEther('100'),
  thin: parseEther('0.0035'),
  initech: parseEther('100'),
};
/**
 * The batches' tenant, apart from the waves': a batch admits each item against the worker's
 * per-tenant open-intent limit (2), which a wave's tenant always has reached.
 */
export const batchTenant = 'initech';

/**
 * The hot wallets start with 1 ETH and are topped up from a treasury (the world's next dev
 * account) whenever they dip below 0.995: a top-up every few waves per wallet, each crossing the
 * payment's crash points and the sweep's own (`after-top-up-admitted`).
 */
export const walletStartWei = parseEther('1');
export const topUpSettings = (world: World) => {
  const treasuryKey = world.anvil.keys[world.wallets.length]!;
  return {
    treasury: privateKeyToAccount(treasuryKey).address,
    env: {
      HOT_WALLET_KEYS: [...world.walletKeys, treasuryKey].join(','),
      TREASURY_WALLET: privateKeyToAccount(treasuryKey).address,
      LOW_BALANCE_ETH: '0.995',
      TOP_UP_TARGET_ETH: '1',
      TREASURY_LOW_BALANCE_ETH: '1',
      TOP_UP_SWEEP_MS: '1000',
    },
  };
};
export const lowMarkWei = parseEther('0.995');

/** Intents of any owner not yet ended. */
export async function openIntents(world: World): Promise<number> {
  const rows = await world.database.kysely
    .selectFrom('intents')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('status', 'not in', [...terminalStatuses])
    .executeTakeFirstOrThrow();
  return Number(rows.count);
}

/** Hot wallets below the low mark plus top-ups not ended: 0 once the top-ups are done. */
export async function walletsLowOrTopUpsOpen(world: World): Promise<number> {
  const balances = await Promise.all(
    world.wallets.map((address) => world.testClient.getBalance({ address })),
  );
  const open = await openTopUps(world.database.kysely, world.anvil.chainId);
  return balances.filter((balance) => balance < lowMarkWei).length + open.length;
}
