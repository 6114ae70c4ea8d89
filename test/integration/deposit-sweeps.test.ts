import { parseEther, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { systemClock } from '../../activities/dependencies';
import { sweepDeposits } from '../../activities/sweep-deposits';
import { insertDepositSweep, sweepableAddresses } from '../../store/deposit-sweeps';
import { createChainRegistry, createEvmChain } from '../../chain/evm-chain';
import type { Intent } from '../../domain/intent';
import { deployDepositFactory } from '../harness/stack/deposit-factory';
import { evmChainSettings } from '../../workers/chain-settings';
import { loadConfig } from '../../workers/config/load';
import { depositEnv, depositWorld, handOutAddress } from '../harness/deposit-world';
import { runActivity } from '../harness/run-activity';
import { databaseSnapshot } from '../harness/api';
import { useWorld, type TestWorld } from '../harness/test-world';

// What a sweep round writes, with no worker: one sweep per address holding credited deposits —
// none where the factory would refuse the treasury or has no code.

const world = useWorld({
  wallets: 1,
  tenants: { acme: '0', globex: '0', initech: '0', umbrella: '0' },
});

/** A credited deposit of `wei` at `address`, as a scan would have left it. */
async function creditedAt(
  world: TestWorld,
  address: Hex,
  wei: bigint,
  id: string,
  tenant = 'acme',
) {
  const now = new Date().toISOString();
  await world.database.kysely
    .insertInto('deposits')
    .values({
      id,
      chain_id: world.anvil.chainId,
      tx_hash: `0x${id.padStart(64, '0')}`,
      log_index: -1,
      address,
      tenant_id: tenant,
      asset: 'native',
      amount: wei.toString(),
      block_number: '1',
      block_hash: `0x${'00'.repeat(32)}`,
      status: 'credited',
      detected_at: now,
      credited_at: now,
      updated_at: now,
    })
    .execute();
}

function roundWith(world: TestWorld, factory: Hex) {
  const config = loadConfig(world.env(depositEnv(world, 'sweep-rounds', factory)));
  const chains = createChainRegistry([createEvmChain(evmChainSettings(config))]);
  const started: Intent[] = [];
  const round = sweepDeposits({
    db: world.database,
    chains,
    clock: systemClock,
    workflows: {
      startIntent: async (intent) => {
        started.push(intent);
      },
      startBatch: () => Promise.reject(new Error('no batches here')),
      tellWalletTurn: () => Promise.reject(new Error('no batches here')),
    },
  });
  return { run: () => runActivity(round, { chainId: world.anvil.chainId }), started };
}

describe('a deposit sweep round', () => {
  it('writes one sweep per address holding credited deposits, then none while it is under way', async () => {
    const { factory } = await depositWorld(world, 'sweep-rounds');
    const address = await handOutAddress(world, factory, 'acme');
    await world.testClient.setBalance({ address, value: parseEther('2') });
    await creditedAt(world, address, parseEther('1'), '1a');
    await creditedAt(world, address, parseEther('1'), '1b');
    const { run, started } = roundWith(world, factory);
    expect(await run()).toEqual({ started: [started[0]!.id] });
    expect(started[0]).toMatchObject({ tenantId: '@operator', to: factory, amount: 0n });
    expect(await run()).toEqual({ started: [] });
  });

  it('writes none where the factory would refuse the treasury, or has no code', async () => {
    const stranger = privateKeyToAccount(world.anvil.keys[5]!).address;
    const foreign = await deployDepositFactory(world.anvil, stranger);
    const nothingThere: Hex = '0x000000000000000000000000000000000000fac7';
    const addresses: string[] = [];
    for (const [tenant, factory] of [
      ['globex', foreign],
      ['initech', nothingThere],
    ] as const) {
      const address = await handOutAddress(world, factory, tenant);
      addresses.push(address);
      await creditedAt(world, address, parseEther('1'), `2${factory.slice(2, 8)}`, tenant);
      const { run, started } = roundWith(world, factory);
      expect(await run()).toEqual({ started: [] });
      expect(started).toEqual([]);
    }
    const sweeps = await world.database.kysely
      .selectFrom('deposit_sweeps')
      .selectAll()
      .where('address', 'in', addresses)
      .execute();
    expect(sweeps).toEqual([]);
  });

  it('writes nothing of a sweep whose deposits another took since they were read', async () => {
    const { factory, treasury } = await depositWorld(world, 'sweep-raced');
    const address = await handOutAddress(world, factory, 'umbrella');
    await creditedAt(world, address, parseEther('1'), '3a', 'umbrella');
    await creditedAt(world, address, parseEther('1'), '3b', 'umbrella');
    const chainId = world.anvil.chainId;
    const [read] = (await sweepableAddresses(world.database.kysely, chainId)).filter(
      (each) => each.address === address,
    );
    const sweep = { chainId, treasury, factory, callData: '0x' as Hex };
    const insert = (id: string) =>
      world.database.transaction((trx) =>
        insertDepositSweep(world.database, trx, id, sweep, read!, new Date()),
      );
    expect(await insert('sweep-first')).toMatchObject({ id: 'sweep-first' });
    const before = await databaseSnapshot(world);
    expect(await insert('sweep-second')).toBeUndefined();
    expect(await databaseSnapshot(world)).toEqual(before);
  });
});
