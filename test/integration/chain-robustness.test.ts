import { formatGwei, parseEther, parseGwei, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createActivities, type RelayerActivities } from '../../activities';
import type { ChainRegistry } from '../../chain/chain';
import { createChainRegistry, createEvmChain } from '../../chain/evm-chain';
import { systemClock } from '../../activities/dependencies';
import { getIntent, insertIntent } from '../../store/intents';
import { listAttempts } from '../../store/transaction-attempts';
import { registerWallet } from '../../store/wallet-nonces';
import type { Throttle } from '../../throttle/throttle';
import { ErrorName } from '../../domain/error-catalogue';
import { parseNewIntent } from '../../domain/intent-request';
import { auditTrail } from '../../store/audit-log';
import { newIntentId } from '../../operations/new-id';
import { evmChainSettings } from '../../workers/chain-settings';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { failureType, runActivity as run } from '../harness/run-activity';
import { startTestThrottle } from '../harness/test-throttle';
import { useWorld } from '../harness/test-world';

/**
 * The transaction manager against a real node: anvil with automine off where the test needs to
 * decide when blocks come, its own methods for fee spikes, dropped transactions and reorgs.
 * Activities run in-process, one look at a time, so every step of the story can be checked.
 */
const stuckAfterMs = 300;
const world = useWorld({
  wallets: 8,
  tenants: { acme: '50' },
  settings: { STUCK_AFTER_MS: String(stuckAfterMs) },
});
let throttle: Throttle;
beforeAll(async () => {
  throttle = await startTestThrottle();
});
world.onStop(async () => {
  await throttle.close();
});
afterEach(async () => {
  await world.testClient.setAutomine(true);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The world's chain with other settings (a deeper confirmation rule, other caps). */
const chainsWith = (settings: Record<string, string>): ChainRegistry =>
  createChainRegistry([
    createEvmChain(evmChainSettings(world.config({ RPC_URLS: world.anvil.rpcUrl, ...settings }))),
  ]);

/** The chains, with a hook run before every broadcast. */
function beforeEachSend(
  chains: ChainRegistry,
  hook: (txHash: Hex) => Promise<void>,
): ChainRegistry {
  return {
    chainIds: chains.chainIds,
    get: (chainId) => {
      const chain = chains.get(chainId);
      return {
        ...chain,
        broadcast: async (signed) => {
          await hook(signed.txHash);
          return chain.broadcast(signed);
        },
      };
    },
  };
}

const activitiesWith = (chains: ChainRegistry = world.chains): RelayerActivities =>
  createActivities({
    db: world.database,
    chains,
    throttle,
    clock: systemClock,
    permitReleaseQueue: 'q',
  });

const newRecipient = () => privateKeyToAccount(generatePrivateKey()).address;

async function newIntent(wallet: number, amount = parseEther('0.01')) {
  const request = parseNewIntent({
    tenantId: 'acme',
    chainId: world.anvil.chainId,
    from: world.wallets[wallet],
    to: newRecipient(),
    amount: amount.toString(),
  });
  return (await insertIntent(world.database.kysely, newIntentId(), request, new Date())).intent;
}

/** An intent taken through permit-free steps up to its first send. */
async function sentIntent(activities: RelayerActivities, wallet: number) {
  const intent = await newIntent(wallet);
  for (const step of [activities.markSettling, activities.hold, activities.broadcast])
    await run(step, { intentId: intent.id });
  return getIntent(world.database.kysely, intent.id);
}

/**
 * Looks until confirmed, running `between` (mining, waiting) before each look, and then waiting
 * as long as a look may read a head that old: a look right after mining may not see the block.
 */
async function confirmWith(
  activities: RelayerActivities,
  intentId: string,
  between: () => Promise<unknown>,
) {
  for (let look = 0; look < 40; look++) {
    const result = await run(activities.confirm, { intentId });
    if (result.state !== 'pending') return result;
    await between();
    await sleep(world.chain.headMaxAgeMs);
  }
  throw new Error(`intent ${intentId} never confirmed`);
}

const auditActions = async (intentId: string) =>
  (await auditTrail(world.database.kysely, intentId)).map((entry) => entry.action);

/** The recipient got exactly the intent's amount: one payment, not two, not none. */
async function expectPaidOnce(intentId: string) {
  const intent = await getIntent(world.database.kysely, intentId);
  expect(await world.testClient.getBalance({ address: intent.to })).toBe(intent.amount);
  return intent;
}

describe('stuck, dropped, reorged and stolen nonces on a real node', () => {
  it('a fee spike leaves a tx stuck: replaced at the same nonce, mined once, both attempts kept', async () => {
    const persistedBeforeSend: boolean[] = [];
    const activities = activitiesWith(
      beforeEachSend(world.chains, async (txHash) => {
        const stored = await world.database.kysely
          .selectFrom('transaction_attempts')
          .select('tx_hash')
          .where('tx_hash', '=', txHash)
          .executeTakeFirst();
        persistedBeforeSend.push(stored !== undefined);
      }),
    );
    await world.testClient.setAutomine(false);
    const intent = await sentIntent(activities, 0);
    const [first] = await listAttempts(world.database.kysely, intent.id);
    // The base fee jumps above everything the first attempt bid, and stays there.
    await world.testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: first!.maxFeePerGas * 4n });
    await world.testClient.mine({ blocks: 1 });
    // anvil evicts a bid below the base fee and refuses it back ("max fee per gas less than
    // block base fee"): the look replaces it at once. A node that keeps it pending gets its
    // replacement once it has been stuck for STUCK_AFTER_MS.
    await sleep(stuckAfterMs);
    const look = await run(activities.confirm, { intentId: intent.id });
    const attempts = await listAttempts(world.database.kysely, intent.id);
    // The look reports the replacement as the intent's transaction now (the workflow's history).
    expect(look).toMatchObject({ state: 'pending', txHash: attempts[1]?.txHash });
    expect(attempts).toHaveLength(2);
    const [, second] = attempts;
    expect(second).toMatchObject({ nonce: first!.nonce, cause: 'fee_bump' });
    expect(second!.maxFeePerGas).toBeGreaterThanOrEqual((first!.maxFeePerGas * 12n) / 10n);
    expect(second!.maxPriorityFeePerGas).toBeGreaterThanOrEqual(
      (first!.maxPriorityFeePerGas * 12n) / 10n,
    );

    const confirmed = await confirmWith(activities, intent.id, () =>
      world.testClient.mine({ blocks: 1 }),
    );
    expect(confirmed.state).toBe('confirmed');
    const final = await expectPaidOnce(intent.id);
    expect(final.txHash).toBe(second!.txHash);
    await expect(world.testClient.getTransactionReceipt({ hash: first!.txHash })).rejects.toThrow();
    expect(persistedBeforeSend.length).toBeGreaterThanOrEqual(2);
    expect(persistedBeforeSend.every(Boolean)).toBe(true);
    expect(await auditActions(intent.id)).toContain('replaced');
    await world.testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei('1') });
    await world.testClient.mine({ blocks: 1 });
  });

  it('a dropped tx is sent again from the persisted bytes and mined once', async () => {
    const sends: Hex[] = [];
    // Never stuck here, however slow the machine: a fee bump is another test's story.
    const activities = activitiesWith(
      beforeEachSend(
        chainsWith({ STUCK_AFTER_MS: '600000' }),
        async (txHash) => void sends.push(txHash),
      ),
    );
    await world.testClient.setAutomine(false);
    const intent = await sentIntent(activities, 1);
    await world.testClient.dropTransaction({ hash: intent.txHash! });
    // Not mined for a while: only then is the node asked whether it still has the bytes.
    await sleep(world.chain.askNodeAfterMs);
    expect(await run(activities.confirm, { intentId: intent.id })).toMatchObject({
      state: 'pending',
    });
    expect(sends).toEqual([intent.txHash, intent.txHash]);

    await confirmWith(activities, intent.id, () => world.testClient.mine({ blocks: 1 }));
    await expectPaidOnce(intent.id);
    expect(await listAttempts(world.database.kysely, intent.id)).toHaveLength(1);
    expect(await auditActions(intent.id)).toEqual(['resent']);
  });

  it('a tx the node drops again once stuck is outbid at its nonce, not sent as the same bytes for ever, and looked at ever less often', async () => {
    const sends: Hex[] = [];
    const activities = activitiesWith(
      beforeEachSend(world.chains, async (txHash) => void sends.push(txHash)),
    );
    await world.testClient.setAutomine(false);
    const intent = await sentIntent(activities, 1);
    await world.testClient.dropTransaction({ hash: intent.txHash! });
    const waitedMs = Math.max(world.chain.askNodeAfterMs, stuckAfterMs);
    await sleep(waitedMs);
    const look = await run(activities.confirm, { intentId: intent.id });
    const [first, second] = await listAttempts(world.database.kysely, intent.id);
    expect(second).toMatchObject({ nonce: first!.nonce, cause: 'fee_bump' });
    expect(second!.maxFeePerGas).toBeGreaterThan(first!.maxFeePerGas);
    expect(sends).toEqual([first!.txHash, second!.txHash]);
    // The next look comes after as long again as the payment has waited, not at the chain's pace.
    expect(look).toMatchObject({ state: 'pending', txHash: second!.txHash });
    expect((look as { retryAfterMs: number }).retryAfterMs).toBeGreaterThanOrEqual(waitedMs);

    await confirmWith(activities, intent.id, () => world.testClient.mine({ blocks: 1 }));
    expect((await expectPaidOnce(intent.id)).txHash).toBe(second!.txHash);
    expect(await auditActions(intent.id)).toContain('replaced');
  });

  it('a reorg that removes a receipt at depth 1 of 2 sends the intent back to confirming, paid once', async () => {
    const chains = chainsWith({ CONFIRMATIONS: '2' });
    const activities = activitiesWith(chains);
    // The head read after the chain moved, not waited for on a timer.
    const readHead = () => chains.get(world.anvil.chainId).blockNumber(0);
    await world.testClient.setAutomine(false);
    const intent = await sentIntent(activities, 2);
    const beforeBlock = await world.testClient.snapshot();
    await world.testClient.mine({ blocks: 1 });
    await readHead();
    expect(await run(activities.confirm, { intentId: intent.id })).toMatchObject({
      state: 'pending',
      confirmations: 1,
    });
    expect((await getIntent(world.database.kysely, intent.id)).blockNumber).not.toBeNull();

    await world.testClient.revert({ id: beforeBlock });
    await readHead();
    expect(await run(activities.confirm, { intentId: intent.id })).toMatchObject({
      state: 'pending',
      confirmations: 0,
    });
    const reorged = await getIntent(world.database.kysely, intent.id);
    expect(reorged).toMatchObject({ status: 'confirming', blockNumber: null });
    expect(await auditActions(intent.id)).toContain('receipt_reorged');

    expect(
      await confirmWith(activities, intent.id, () => world.testClient.mine({ blocks: 1 })),
    ).toMatchObject({ state: 'confirmed' });
    await expectPaidOnce(intent.id);
  });

  it('a nonce used by an outside transaction is detected; the intent is signed again at a fresh nonce, paid once', async () => {
    let sendsLost = true;
    const activities = activitiesWith(
      beforeEachSend(world.chains, async () => {
        if (sendsLost) throw new Error('connection reset before the node had it');
      }),
    );
    const intent = await newIntent(3);
    await run(activities.markSettling, { intentId: intent.id });
    await run(activities.hold, { intentId: intent.id });
    await expect(run(activities.broadcast, { intentId: intent.id })).rejects.toThrow('reset');
    const signed = await getIntent(world.database.kysely, intent.id);

    // Someone uses the wallet outside the relayer, at the nonce our stuck send holds.
    const outsider = privateKeyToAccount(world.walletKeys[3]!);
    await world.testClient.sendRawTransaction({
      serializedTransaction: await outsider.signTransaction({
        chainId: world.anvil.chainId,
        type: 'eip1559',
        nonce: signed.nonce!,
        to: outsider.address,
        value: 0n,
        gas: 21_000n,
        maxFeePerGas: parseGwei('10'),
        maxPriorityFeePerGas: parseGwei('1'),
      }),
    });

    sendsLost = false;
    expect(await run(activities.broadcast, { intentId: intent.id })).toMatchObject({
      status: 'confirming',
    });
    await confirmWith(activities, intent.id, () => sleep(20));
    const attempts = await listAttempts(world.database.kysely, intent.id);
    expect(attempts.map((attempt) => attempt.cause)).toEqual(['first', 'nonce_reassigned']);
    expect(attempts[1]!.nonce).toBeGreaterThan(signed.nonce!);
    const final = await expectPaidOnce(intent.id);
    expect(final).toMatchObject({ status: 'confirmed', nonce: attempts[1]!.nonce });
    expect(await auditActions(intent.id)).toContain('nonce_reassigned');
    await expectBooksBalanced(world.database);
  });

  it('a lagging endpoint that does not know our mined tx never makes the relayer sign it again', async () => {
    // The first look at each hash comes from an endpoint that has not seen it (nor its receipt),
    // while the chain already counts the nonce as used: it looks like a stranger took it.
    const lookedAt = new Set<string>();
    const lagging: ChainRegistry = {
      chainIds: world.chains.chainIds,
      get: (chainId) => {
        const chain = world.chains.get(chainId);
        return {
          ...chain,
          observe: async (txHash, signedAt) => {
            if (lookedAt.has(txHash)) return chain.observe(txHash, signedAt);
            return { state: 'not-mined' };
          },
          observeAtNode: async (txHash) => {
            if (lookedAt.has(txHash)) return chain.observeAtNode(txHash);
            lookedAt.add(txHash);
            return { state: 'unknown' };
          },
        };
      },
    };
    const activities = activitiesWith(lagging);
    const intent = await sentIntent(activities, 7);
    await world.testClient.waitForTransactionReceipt({ hash: intent.txHash! });
    await confirmWith(activities, intent.id, () => sleep(20));
    expect(await listAttempts(world.database.kysely, intent.id)).toHaveLength(1);
    await expectPaidOnce(intent.id);
  });

  it('a gap left by an outside transaction that was dropped is filled; the intent behind it lands', async () => {
    const wallet = world.wallets[4]!;
    const outsider = privateKeyToAccount(world.walletKeys[4]!);
    await world.testClient.setAutomine(false);
    const gapNonce = await world.chain.pendingNonce(wallet);
    const outside = await outsider.signTransaction({
      chainId: world.anvil.chainId,
      type: 'eip1559',
      nonce: gapNonce,
      to: outsider.address,
      value: 0n,
      gas: 21_000n,
      maxFeePerGas: parseGwei('10'),
      maxPriorityFeePerGas: parseGwei('1'),
    });
    const outsideHash = await world.testClient.sendRawTransaction({
      serializedTransaction: outside,
    });
    // A worker starting now syncs with the chain's pending nonce, past the outside transaction…
    await registerWallet(
      world.database,
      { chainId: world.anvil.chainId, address: wallet },
      await world.chain.pendingNonce(wallet),
    );
    // …which the node then drops: nonce `gapNonce` will never be used unless we use it.
    await world.testClient.dropTransaction({ hash: outsideHash });
    await world.testClient.setAutomine(true);

    const activities = activitiesWith();
    const intent = await sentIntent(activities, 4);
    expect(intent.nonce).toBe(gapNonce + 1);
    await confirmWith(activities, intent.id, async () => {
      await sleep(stuckAfterMs / 3);
      await world.testClient.mine({ blocks: 1 });
    });
    await expectPaidOnce(intent.id);
    expect(await auditActions(intent.id)).toContain('nonce_gap_filled');
    const fill = await world.database.kysely
      .selectFrom('nonce_fills')
      .selectAll()
      .where('address', '=', wallet)
      .executeTakeFirstOrThrow();
    expect(fill.nonce).toBe(gapNonce);
    const filled = await world.testClient.getTransaction({ hash: fill.tx_hash as Hex });
    expect(filled).toMatchObject({ nonce: gapNonce, value: 0n, to: wallet.toLowerCase() });
  });
});

describe('fee caps', () => {
  it('above the caps nothing is signed: the send waits (retryable FeeAboveCap), never overpays', async () => {
    await world.testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei('80') });
    await world.testClient.mine({ blocks: 1 });
    const chains = chainsWith({ MAX_FEE_PER_GAS_GWEI: '50' });
    const activities = activitiesWith(chains);
    const intent = await newIntent(5);
    await run(activities.markSettling, { intentId: intent.id });
    await run(activities.hold, { intentId: intent.id });
    expect(await failureType(run(activities.broadcast, { intentId: intent.id }))).toBe(
      ErrorName.feeAboveCap,
    );
    expect(await getIntent(world.database.kysely, intent.id)).toMatchObject({
      status: 'held',
      txHash: null,
    });
    expect(await listAttempts(world.database.kysely, intent.id)).toEqual([]);

    // Once the market is back under the caps the same step goes through.
    await world.testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei('1') });
    await world.testClient.mine({ blocks: 1 });
    await chains.get(world.anvil.chainId).blockNumber(0); // the market is read with the head
    await run(activities.broadcast, { intentId: intent.id });
    await confirmWith(activities, intent.id, () => sleep(20));
    const [attempt] = await listAttempts(world.database.kysely, intent.id);
    expect(attempt!.maxFeePerGas).toBeLessThanOrEqual(parseGwei('50'));
  });

  it('a stuck tx whose replacement would pass the cap is left to its chance, not overbid', async () => {
    await world.testClient.setAutomine(false);
    const base = (await world.testClient.getBlock()).baseFeePerGas!;
    // The cap leaves room for the first bid (2 × base + tip) but not for a 20% higher one.
    const cap = base * 2n + parseGwei('1') + 1n;
    const activities = activitiesWith(chainsWith({ MAX_FEE_PER_GAS_GWEI: formatGwei(cap) }));
    const intent = await sentIntent(activities, 6);
    await world.testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: cap * 2n });
    await world.testClient.mine({ blocks: 1 });
    await sleep(stuckAfterMs);
    const look = await run(activities.confirm, { intentId: intent.id });
    const attempts = await listAttempts(world.database.kysely, intent.id);
    expect(look).toMatchObject({ state: 'pending' });
    expect(attempts).toHaveLength(1);
    expect(attempts[0]!.maxFeePerGas).toBeLessThanOrEqual(cap);

    await world.testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei('1') });
    await confirmWith(activities, intent.id, () => world.testClient.mine({ blocks: 1 }));
    await expectPaidOnce(intent.id);
  });
});
