import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { BatchMode } from '../../domain/batch';
import { IntentStatus } from '../../domain/intent';
import { parseNewIntent } from '../../domain/intent-request';
import { newIntentId } from '../../operations/new-id';
import { insertBatch } from '../../store/batches';
import { updateBatchItem } from '../../store/batch-items';
import { getIntent, insertIntent, transitionIntent } from '../../store/intents';
import { itemsWaitingForTurnBefore, turnsToTell, walletTurnOf } from '../../store/wallet-turns';
import { useWorld } from '../harness/test-world';

/**
 * The wallet-turn rule read from the real store (domain/wallet-turn.ts says it in words): a batch
 * whose items are put in each state by hand, then asked whose turn it is and whom to tell.
 */
const world = useWorld({ wallets: 2, tenants: { acme: '10' } });

type ItemState = IntentStatus | 'pending' | 'rejected' | 'signed-then-failed';

/** Nonces are unique per wallet across the file's batches. */
let nextNonce = 0;

/** A batch of items of wallets `w0`/`w1`/none ('-'), each put in `states[i]`. */
async function batchIn(states: ItemState[], wallets: string) {
  const batchId = `b_${newIntentId()}`;
  const walletOf = (i: number) =>
    wallets[i] === '-' ? undefined : world.wallets[Number(wallets[i])];
  const now = new Date(Date.now() - 120_000);
  await insertBatch(
    world.database.kysely,
    {
      id: batchId,
      tenantId: 'acme',
      mode: BatchMode.collectAll,
      concurrency: 8,
      itemCount: states.length,
      idempotencyKey: batchId,
      requestSha256: batchId,
    },
    states.map((_, i) => ({
      chainId: world.anvil.chainId,
      ...(walletOf(i) && { from: walletOf(i) }),
      to: privateKeyToAccount(generatePrivateKey()).address,
      amount: 1000n,
    })),
    now,
  );
  const intentIds: (string | undefined)[] = [];
  for (const [i, state] of states.entries()) {
    if (state === 'pending') {
      intentIds.push(undefined);
      continue;
    }
    if (state === 'rejected') {
      await updateBatchItem(world.database.kysely, batchId, i, { state: 'rejected' });
      intentIds.push(undefined);
      continue;
    }
    const { intent } = await insertIntent(
      world.database.kysely,
      newIntentId(),
      parseNewIntent({
        tenantId: 'acme',
        chainId: world.anvil.chainId,
        ...(walletOf(i) && { from: walletOf(i) }),
        to: privateKeyToAccount(generatePrivateKey()).address,
        amount: '1000',
      }),
      now,
    );
    await updateBatchItem(world.database.kysely, batchId, i, {
      state: 'started',
      intent_id: intent.id,
    });
    const signed = state === 'signed' || state === 'confirmed' || state === 'signed-then-failed';
    const status = state === 'signed-then-failed' ? IntentStatus.failed : state;
    if (status !== IntentStatus.authorized) {
      const nonce = nextNonce++;
      const signature = { nonce, txHash: `0x${nonce.toString(16)}`, rawTx: '0x00' } as const;
      await transitionIntent(
        world.database.kysely,
        intent,
        { status, ...(signed && signature) },
        now,
      );
    }
    intentIds.push(intent.id);
  }
  const turns = () =>
    Promise.all(states.map((_, i) => walletTurnOf(world.database.kysely, batchId, i)));
  return { batchId, intentIds, turns };
}

describe("a batch item's wallet turn, read from the store", () => {
  it('the first unsigned item of a wallet signs; the one after it starts once that one is held', async () => {
    const { turns } = await batchIn(
      ['confirmed', 'held', 'authorized', 'authorized', 'authorized'],
      '00000',
    );
    expect(await turns()).toEqual(['sign', 'sign', 'start', 'wait', 'wait']);
  });

  it('waits while the one unsigned item ahead has no permit yet (settling counts as not held)', async () => {
    const { turns } = await batchIn(['authorized', 'settling', 'held'], '000');
    expect(await turns()).toEqual(['sign', 'wait', 'wait']);
  });

  it('items that ended unsigned are passed over; a signed one that failed later counts as signed', async () => {
    const { turns } = await batchIn(
      ['held', 'rejected', 'failed', 'cancelled', 'authorized', 'signed-then-failed', 'held'],
      '0000000',
    );
    // Item 4 sees only item 0 ahead (held): it may start. Item 6 sees 5 (signed): it may sign.
    expect((await turns())[4]).toBe('start');
    expect((await turns())[6]).toBe('sign');
  });

  it('a pending item ahead (not admitted yet) blocks, like any item that may still sign', async () => {
    const { turns } = await batchIn(['pending', 'authorized'], '00');
    expect(await turns()).toEqual(['sign', 'wait']);
  });

  it('wallets keep turns of their own; an item naming no wallet never waits', async () => {
    const { turns } = await batchIn(
      ['authorized', 'authorized', 'authorized', 'authorized'],
      '01-1',
    );
    expect(await turns()).toEqual(['sign', 'sign', 'sign', 'wait']);
  });

  it('tells the next two unsigned items of the wallet the turns that moved, and no one waiting', async () => {
    const { batchId, intentIds } = await batchIn(
      ['signed', 'held', 'authorized', 'authorized'],
      '0000',
    );
    const kysely = world.database.kysely;
    expect(await turnsToTell(kysely, batchId, 0)).toEqual([
      { intentId: intentIds[1], turn: 'sign' },
      { intentId: intentIds[2], turn: 'start' },
    ]);
    // From item 1 (held): item 2 may start; item 3 still waits, so it is not told.
    expect(await turnsToTell(kysely, batchId, 1)).toEqual([
      { intentId: intentIds[2], turn: 'start' },
    ]);
  });

  it('lists items waiting long for their turn, for the sweep to tell again', async () => {
    const { batchId, intentIds } = await batchIn(
      ['signed', 'held', 'authorized', 'authorized'],
      '000-',
    );
    const kysely = world.database.kysely;
    const waiting = await itemsWaitingForTurnBefore(kysely, new Date());
    const ours = waiting.filter((item) => item.batchId === batchId).map((item) => item.intentId);
    expect(ours.sort()).toEqual([intentIds[1], intentIds[2]].sort());
    expect(await itemsWaitingForTurnBefore(kysely, new Date(Date.now() - 3_600_000))).toEqual([]);
    expect((await getIntent(kysely, intentIds[1]!)).status).toBe(IntentStatus.held);
  });
});
