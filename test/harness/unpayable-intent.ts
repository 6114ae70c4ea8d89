import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { RelayerActivities } from '../../activities';
import type { LocalWorld } from './stack/local-world';
import type { Intent } from '../../domain/intent';
import { parseNewIntent } from '../../domain/intent-request';
import { newIntentId } from '../../operations/new-id';
import { getIntent, insertIntent } from '../../store/intents';
import { failureType, runActivity as run } from './run-activity';

/** An intent of acme's for `ether` from the world's wallet `wallet`, to a recipient of its own. */
export async function newIntentFrom(world: LocalWorld, wallet: number, ether: string) {
  const request = parseNewIntent({
    tenantId: 'acme',
    chainId: world.anvil.chainId,
    from: world.wallets[wallet],
    // A recipient of its own: another intent's transaction must never match this one.
    to: privateKeyToAccount(generatePrivateKey()).address,
    amount: parseEther(ether).toString(),
  });
  return (await insertIntent(world.database.kysely, newIntentId(), request, new Date())).intent;
}

/**
 * A lane stuck behind an intent its wallet cannot pay: the wallet gets gas for a few transfers,
 * not the 1 ether of the first intent, whose send the node refuses; `behind` small intents are
 * signed and sent after it on the same wallet (they wait in the node's queue for its nonce) before
 * it is closed into needs_review, as after its send step's five minutes.
 */
export async function laneStuckBehindUnpayableIntent(
  world: LocalWorld,
  steps: RelayerActivities,
  wallet: number,
  behind: number,
): Promise<{ stuck: Intent; behind: Intent[] }> {
  await world.testClient.setBalance({ address: world.wallets[wallet]!, value: parseEther('0.1') });
  const unpayable = await newIntentFrom(world, wallet, '1');
  await run(steps.markSettling, { intentId: unpayable.id });
  await run(steps.hold, { intentId: unpayable.id });
  expect(await failureType(run(steps.broadcast, { intentId: unpayable.id }))).toBe(
    'WalletUnderfunded',
  );
  const queued: Intent[] = [];
  for (let i = 0; i < behind; i++) {
    const intent = await newIntentFrom(world, wallet, '0.001');
    for (const step of [steps.markSettling, steps.hold, steps.broadcast])
      await run(step, { intentId: intent.id });
    queued.push(await getIntent(world.database.kysely, intent.id));
  }
  const closed = await run(steps.closeIntent, {
    intentId: unpayable.id,
    reason: 'send failed for 5 min',
  });
  expect(closed.status).toBe('needs_review');
  const stuck = await getIntent(world.database.kysely, unpayable.id);
  expect(queued.map((intent) => intent.nonce)).toEqual(queued.map((_, i) => stuck.nonce! + i + 1));
  return { stuck, behind: queued };
}
