import { Client, Connection } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { parseEther, type Hex } from 'viem';
import { depositScanScheduleId, depositUpkeepScheduleId } from '../../client/sweep-schedules';
import { createChainRegistry, createEvmChain } from '../../chain/evm-chain';
import { ledgerAssetOf } from '../../domain/asset';
import { operatorOwner } from '../../domain/custody';
import { nativeBookOf } from '../../domain/ledger-book';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';
import { reconcileDeposits } from '../../operations/reconcile-deposits';
import { creditDeposit, listDeposits } from '../../store/deposits';
import { lastReconciliations } from '../../store/deposit-reconciliations';
import { tenantBalance } from '../../store/ledger';
import { evmChainSettings } from '../../workers/chain-settings';
import { loadConfig } from '../../workers/config/load';
import { depositWorld, handOutAddress, mineUntil, sendNative } from '../harness/deposit-world';
import { expectInvariants } from '../harness/invariants';
import { registeredTestToken } from '../harness/test-token';
import { useWorld } from '../harness/test-world';

// One deposit's trail with a real worker: seen on the chain, credited once when final, swept to
// the treasury by the house's own intent (the tenant's books untouched), reconciled to zero.

jest.setTimeout(180_000);

const world = useWorld({
  anvil: { slotsInAnEpoch: 1 },
  wallets: 1,
  tenants: { acme: '0' },
});

describe('deposits, chain to books to treasury', () => {
  it('ETH and a token sent to a tenant’s address are credited once, swept to the treasury by the house, and reconcile to zero; a deposit credited by hand shows as a difference', async () => {
    const { database, anvil } = world;
    const db = database.kysely;
    const taskQueue = `deposit-trail-${randomUUID()}`;
    const { treasury, factory, env } = await depositWorld(world, taskQueue);
    const token = await registeredTestToken(world, { alias: 'DUSD', decimals: 6, tenants: {} });
    const address = await handOutAddress(world, factory, 'acme');
    await sendNative(world, address, parseEther('1.5'));
    await token.token.write('mint', [address, 250n * 10n ** 6n]);
    const treasuryBefore = await world.testClient.getBalance({ address: treasury });

    const [worker] = await world.spawnWorkers(1, env);
    const connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
    const client = new Client({ connection });
    try {
      const sweepRows = () => db.selectFrom('deposit_sweeps').selectAll().execute();
      await mineUntil(
        world,
        async () => {
          const rows = await sweepRows();
          const moved = new Set(rows.flatMap((row) => Object.keys(JSON.parse(row.swept ?? '{}'))));
          return rows.every((row) => row.swept !== null) && moved.size === 2;
        },
        'both deposits credited, swept and each sweep read back',
      );
      const deposits = await listDeposits(db, 'acme', { limit: 10 });
      expect(deposits.map((d) => [d.asset, d.amount, d.status]).sort()).toEqual(
        [
          ['native', parseEther('1.5'), 'credited'],
          [token.token.address, 250n * 10n ** 6n, 'credited'],
        ].sort(),
      );
      const book = nativeBookOf(anvil.chainId);
      const tokenBook = ledgerAssetOf(anvil.chainId, token.token.address);
      expect(await tenantBalance(db, 'acme', book)).toEqual({
        available: parseEther('1.5'),
        held: 0n,
      });
      expect(await tenantBalance(db, 'acme', tokenBook)).toEqual({
        available: 250n * 10n ** 6n,
        held: 0n,
      });

      // Swept by the house's intents (one, or one per deposit when they were final apart): the
      // treasury's call to the factory, each run as a depositSweepV2 workflow.
      const sweeps = await sweepRows();
      let gas = 0n;
      const moved: Record<string, string> = {};
      for (const sweep of sweeps) {
        const intent = await db
          .selectFrom('intents')
          .selectAll()
          .where('id', '=', sweep.intent_id)
          .executeTakeFirstOrThrow();
        expect(intent).toMatchObject({
          tenant_id: operatorOwner,
          from_address: treasury,
          to_address: factory,
          status: 'confirmed',
        });
        const described = await client.workflow
          .getHandle(paymentIntentWorkflowId(intent.id))
          .describe();
        expect(described.type).toBe('depositSweepV2');
        Object.assign(moved, JSON.parse(sweep.swept!));
        expect(BigInt(sweep.gas_paid!)).toBeGreaterThan(0n);
        gas += BigInt(sweep.gas_paid!);
      }
      expect(moved).toEqual({
        native: parseEther('1.5').toString(),
        [token.token.address]: (250n * 10n ** 6n).toString(),
      });
      expect(await world.testClient.getBalance({ address })).toBe(0n);
      expect(await token.token.balanceOf(address)).toBe(0n);
      expect(await token.token.balanceOf(treasury)).toBe(250n * 10n ** 6n);
      expect(await world.testClient.getBalance({ address: treasury })).toBe(
        treasuryBefore + parseEther('1.5') - gas,
      );
      // The sweep changed no tenant's books.
      expect(await tenantBalance(db, 'acme', book)).toEqual({
        available: parseEther('1.5'),
        held: 0n,
      });
      await mineUntil(
        world,
        async () => (await lastReconciliations(db)).some((r) => r.report.lines.length === 2),
        'a reconciliation after the sweep',
      );
      const [kept] = await lastReconciliations(db);
      expect(kept!.differences).toBe(0);
      expect(kept!.report.sweepGas).toBe(gas.toString());
      await expectInvariants({
        world,
        deposits: { acme: parseEther('1.5'), [`acme/${tokenBook}`]: 250n * 10n ** 6n },
        wallets: [...world.wallets, treasury],
      });

      // A deposit credited by hand (no transfer on the chain) shows at its address.
      const chain = createChainRegistry([
        createEvmChain(evmChainSettings(loadConfig(world.env({ ...env, RPC_URLS: anvil.rpcUrl })))),
      ]).get(anvil.chainId);
      const head = await world.testClient.getBlockNumber({ cacheTime: 0 });
      const byHand = {
        id: 'dep_by_hand',
        chainId: anvil.chainId,
        txHash: `0x${'ab'.repeat(32)}` as Hex,
        logIndex: -1,
        address,
        tenantId: 'acme',
        asset: 'native',
        amount: parseEther('0.25'),
        blockNumber: head - 5n,
        blockHash: `0x${'cd'.repeat(32)}`,
        status: 'detected' as const,
      };
      await db
        .insertInto('deposits')
        .values({
          id: byHand.id,
          chain_id: byHand.chainId,
          tx_hash: byHand.txHash,
          log_index: byHand.logIndex,
          address,
          tenant_id: 'acme',
          asset: 'native',
          amount: byHand.amount.toString(),
          block_number: byHand.blockNumber.toString(),
          block_hash: byHand.blockHash,
          status: 'detected',
          detected_at: new Date().toISOString(),
          updated_at: new Date().toISOString(),
        })
        .execute();
      expect(
        await creditDeposit(
          database,
          { ...byHand, detectedAt: new Date(), creditedAt: null },
          book,
          new Date(),
        ),
      ).toBe(true);
      const report = await reconcileDeposits(database, chain);
      expect(report!.differences).toBe(1);
      expect(report!.lines.filter((line) => line.difference !== 0n)).toEqual([
        expect.objectContaining({ address, asset: 'native', difference: -parseEther('0.25') }),
      ]);
    } finally {
      for (const id of [
        depositScanScheduleId(taskQueue, anvil.chainId),
        depositUpkeepScheduleId(taskQueue, anvil.chainId),
      ]) {
        await client.schedule
          .getHandle(id)
          .delete()
          .catch(() => undefined);
      }
      worker!.signal('SIGTERM');
      await worker!.exited;
      await connection.close();
    }
  });
});
