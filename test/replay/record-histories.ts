import { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { batchResults } from '../../store/batch-results';
import { BatchMode, batchWorkflowId } from '../../domain/batch';
import { parseNewIntent } from '../../domain/intent-request';
import { newIntentId } from '../../operations/new-id';
import { getIntent, insertIntent } from '../../store/intents';
import { waitFor } from '../harness/stack/wait-for';
import type { finalitySweep, orphanSweep, topUpSweep } from '../../workflows';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';
import { reviewIntent } from '../../service/review-intent';
import { cancelIntent } from '../../service/cancel-intent';
import { submitBatch } from '../../service/submit-batch';
import { submitIntent } from '../../service/submit-intent';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startDevServer } from '../harness/stack/temporal-servers';
import { spawnWorker } from '../harness/stack/worker-process';
import { startRelayerProcess } from '../../workers/relayer-process';
import { installRuntime } from '../../workers/runtime';
import { startTestWorld, type TestWorld } from '../harness/test-world';
import { intentWaitingInReview } from '../harness/intent-in-review';
import { registeredTestToken } from '../harness/test-token';
import { randomBytes } from 'node:crypto';
import { webhookWorkflowId } from '../../client/webhook-workflows';
import { intentWorkflow } from '../../client/intent-workflows';
import { WebhookReceiver } from '../harness/stack/webhook-receiver';
import { registerEndpoint } from '../../service/webhooks';
import { secretBox } from '../../webhooks/secret-box';
import { setBookLimits } from '../../service/policy-limits';
import { decideIntentApproval } from '../../service/approve-intent';
import { decideBatchApprovalFor } from '../../service/approve-batch';
import { recordSpeedUp, recordUnminedCancel } from './record-unmined-cancel';
import { recordFeeCeiling } from './record-fee-ceiling';
import { recordTransactionSeen } from './record-transaction-seen';
import { recordScheduledPayment } from './record-scheduled-payment';
import { recordDeposits } from './record-deposits';
import { pause, resume } from '../../service/pauses';
import { PauseScope } from '../../domain/pause';

/**
 * `npm run record:histories`: runs one intent down each path on the embedded stack (one of them
 * through a worker killed mid-step) and stores the workflow histories under test/replay/histories/
 * (`-- crash`: only the crashed run; `-- sweep`: only the orphan sweep; `-- wallet`: only the
 * intent and the batch that name no wallet; `-- lane`: only the lane rule's cancel; `-- turns`:
 * only a batch of one wallet's items signing in turns; `-- tokens`: only the token payments;
 * `-- webhooks`: only an endpoint's deliveries; `-- window`: only an intent with a send window of
 * its own; `-- finality`: only the finality sweep; `-- top-ups`: only a top-up sweep and its
 * top-up; `-- early-decision`: only a decision that reached the run before it waited in review;
 * `-- approvals`: only intents that awaited approval: approved, rejected, expired;
 * `-- batch-approval`: only a batch that awaited approval as a batch, approved; `-- batch-stop`:
 * only a fail_fast batch stopped by an item refused at admission; `-- unmined-cancel`: only a
 * payment cancelled by its tenant while sent but not mined; `-- speed-up`: only such a payment
 * sped up by its tenant; `-- fee-ceiling`: only a payment that waited unsigned under its own
 * fee ceiling; `-- deadlines`: only an intent held
 * back by notBefore, and one approved after its validUntil; `-- pauses`: only an intent its
 * tenant's pause held back, then resumed; `-- schedules`: only a payment schedule's occurrence; `-- deposits`: only a deposit's scan, the
 * chain's deposit upkeep and its sweep).
 * The replay test runs today's workflow code
 * against them, so a change that would break running workflows fails CI. Re-record only on
 * purpose, when an old history no longer needs to replay (and keep the old file if it still does).
 */
async function main(): Promise<void> {
  installRuntime('WARN');
  const server = await startDevServer();
  process.env.TEMPORAL_TEST_ADDRESS = server.address;
  try {
    // `-- crash`, `-- sweep`, `-- wallet`, `-- lane` or `-- turns`: only that one, leaving the
    // other (older) histories.
    const only = [
      'crash',
      'sweep',
      'wallet',
      'lane',
      'turns',
      'tokens',
      'webhooks',
      'window',
      'finality',
      'top-ups',
      'early-decision',
      'approvals',
      'batch-approval',
      'batch-stop',
      'unmined-cancel',
      'speed-up',
      'fee-ceiling',
      'deadlines',
      'pauses',
      'schedules',
      'deposits',
      'transaction-seen',
    ].filter((name) => process.argv.includes(name));
    if (only.length === 0) await recordPaths(server);
    if (only.length === 0 || only.includes('crash')) await recordCrashedRun(server);
    if (only.length === 0 || only.includes('sweep')) await recordOrphanSweep(server);
    if (only.length === 0 || only.includes('wallet')) await recordWalletChosen(server);
    if (only.length === 0 || only.includes('lane')) await recordLaneFreed(server);
    if (only.length === 0 || only.includes('turns')) await recordWalletTurns(server);
    if (only.length === 0 || only.includes('tokens')) await recordTokenPayments(server);
    if (only.length === 0 || only.includes('webhooks')) await recordWebhookDeliveries(server);
    if (only.length === 0 || only.includes('window')) await recordSendWindowReview(server);
    if (only.length === 0 || only.includes('finality')) await recordFinalitySweep(server);
    if (only.length === 0 || only.includes('top-ups')) await recordTopUp(server);
    if (only.length === 0 || only.includes('early-decision')) {
      await recordDecisionBeforeReview(server);
    }
    if (only.length === 0 || only.includes('approvals')) await recordApprovals(server);
    if (only.length === 0 || only.includes('batch-approval')) await recordBatchApproval(server);
    if (only.length === 0 || only.includes('batch-stop')) await recordBatchStopped(server);
    if (only.length === 0 || only.includes('unmined-cancel')) await recordUnminedCancel(server);
    if (only.length === 0 || only.includes('speed-up')) await recordSpeedUp(server);
    if (only.length === 0 || only.includes('fee-ceiling')) await recordFeeCeiling(server);
    if (only.length === 0 || only.includes('deadlines')) await recordDeadlines(server);
    if (only.length === 0 || only.includes('pauses')) await recordPausedIntent(server);
    if (only.length === 0 || only.includes('schedules')) await recordScheduledPayment(server);
    if (only.length === 0 || only.includes('deposits')) await recordDeposits(server);
    if (only.length === 0 || only.includes('transaction-seen')) await recordTransactionSeen(server);
  } finally {
    await server.teardown();
  }
}

/** A payment of `amount` ether from acme's first wallet to a fixed recipient. */
const paymentRequest = (world: TestWorld, amount: string) => ({
  tenantId: 'acme',
  chainId: world.anvil.chainId,
  from: world.wallets[0],
  to: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
  amount: parseEther(amount).toString(),
});

async function recordPaths(server: TestWorkflowEnvironment): Promise<void> {
  const world = await startTestWorld({ tenants: { acme: '1' } });
  // 1/s with burst 1 and a short wait, so that concurrent intents see throttle refusals.
  const relayer = await startRelayerProcess(
    world.config({ THROTTLE_PER_SECOND: '1', THROTTLE_BURST: '1', THROTTLE_MAX_WAIT_MS: '100' }),
  );
  try {
    const deps = {
      database: world.database,
      client: new Client({ connection: server.connection }),
      taskQueue: 'payment-relayer',
    };
    const request = (amount: string) => paymentRequest(world, amount);
    // Both pass the advisory balance check at submit; the second cannot be held.
    const scenarios = await Promise.all([
      submitIntent(deps, request('0.6')),
      submitIntent(deps, request('0.6')),
      submitIntent(deps, request('0.1')),
    ]);
    // A fourth waits behind them for a permit and is cancelled by its tenant meanwhile.
    const cancelled = await submitIntent(deps, request('0.1'));
    await cancelIntent(
      deps,
      { role: 'tenant', tenantId: 'acme', keyId: 'recorder', label: 'record' },
      cancelled.intent.id,
    );
    scenarios.push(cancelled);
    for (const { workflowId } of scenarios) {
      const handle = deps.client.workflow.getHandle(workflowId);
      const outcome = await handle.result();
      const name = `${outcome.status}${outcome.permitRefusals > 0 ? '-after-throttle' : ''}`;
      const file = join(__dirname, 'histories', `payment-intent-${name}.json`);
      writeFileSync(file, historyToJSON(await handle.fetchHistory()));
      console.log(
        `${workflowId}: ${outcome.status} (${outcome.permitRefusals} refusals) → ${file}`,
      );
    }
    // A batch of four over both wallets, two at a time; its first item's history shows the
    // child's side (the signal to its batch).
    const { batch } = await submitBatch(
      deps,
      'acme',
      {
        mode: BatchMode.collectAll,
        concurrency: 2,
        items: [0, 1, 2, 3].map((i) => ({
          ...parseNewIntent(request('0.001')),
          from: world.wallets[i % 2]!,
        })),
      },
      'record-histories',
    );
    const batchHandle = deps.client.workflow.getHandle(batchWorkflowId(batch.id));
    const summary = await batchHandle.result();
    const batchFile = join(__dirname, 'histories', 'payment-batch-completed.json');
    writeFileSync(batchFile, historyToJSON(await batchHandle.fetchHistory()));
    console.log(`${batchHandle.workflowId}: ${JSON.stringify(summary.counts)} → ${batchFile}`);
    const [firstItem] = await batchResults(world.database.kysely, batch.id, 0, 1);
    const itemHandle = deps.client.workflow.getHandle(
      paymentIntentWorkflowId(firstItem!.intentId!),
    );
    const itemFile = join(__dirname, 'histories', 'payment-intent-batch-item.json');
    writeFileSync(itemFile, historyToJSON(await itemHandle.fetchHistory()));
    console.log(`${itemHandle.workflowId}: batch item → ${itemFile}`);

    // An intent whose transaction the node holds but does not mine: it waits in review, an
    // operator retries it (the resolveReview update), and it is confirmed in the same workflow.
    const { intent, handle: reviewed } = await intentWaitingInReview(
      world,
      deps,
      parseNewIntent(request('0.001')),
      1500,
    );
    await reviewIntent(
      { ...deps, chains: world.chains },
      { role: 'operator', keyId: 'recorder', label: 'record' },
      intent.id,
      { action: 'retry', note: 'recorded' },
    );
    await world.testClient.setAutomine(true);
    await world.testClient.mine({ blocks: 1 });
    const reviewedOutcome = await reviewed.result();
    const reviewFile = join(__dirname, 'histories', 'payment-intent-review-retried.json');
    writeFileSync(reviewFile, historyToJSON(await reviewed.fetchHistory()));
    console.log(`${reviewed.workflowId}: ${reviewedOutcome.status} after review → ${reviewFile}`);
  } finally {
    await relayer.stop();
    await world.stop();
  }
}

/**
 * An intent and a batch that name no wallet: the wallet is chosen when each is signed, and the
 * intent's workflow gets its Wallet search attribute then.
 */
async function recordWalletChosen(server: TestWorkflowEnvironment): Promise<void> {
  const world = await startTestWorld({ tenants: { acme: '1' } });
  const taskQueue = 'record-wallet';
  const relayer = await startRelayerProcess(world.config({ TASK_QUEUE: taskQueue }));
  try {
    const deps = {
      database: world.database,
      client: new Client({ connection: server.connection }),
      taskQueue,
    };
    const unpinned = { ...paymentRequest(world, '0.001'), from: undefined };
    const { workflowId } = await submitIntent(deps, unpinned);
    const handle = deps.client.workflow.getHandle(workflowId);
    const outcome = await handle.result();
    const file = join(__dirname, 'histories', 'payment-intent-wallet-chosen.json');
    writeFileSync(file, historyToJSON(await handle.fetchHistory()));
    console.log(`${workflowId}: ${outcome.status}, wallet chosen → ${file}`);

    const { batch } = await submitBatch(
      deps,
      'acme',
      {
        mode: BatchMode.collectAll,
        concurrency: 2,
        items: [1, 2, 3].map(() => parseNewIntent(unpinned)),
      },
      'record-wallet-chosen',
    );
    const batchHandle = deps.client.workflow.getHandle(batchWorkflowId(batch.id));
    const summary = await batchHandle.result();
    const batchFile = join(__dirname, 'histories', 'payment-batch-wallets-chosen.json');
    writeFileSync(batchFile, historyToJSON(await batchHandle.fetchHistory()));
    console.log(`${batchHandle.workflowId}: ${JSON.stringify(summary.counts)} → ${batchFile}`);
  } finally {
    await relayer.stop();
    await world.stop();
  }
}

/**
 * Token payments: one paid in full; one of a fee-on-transfer token not registered as one, whose
 * shortfall waits in review until an operator confirms it (the resolveReview update).
 */
async function recordTokenPayments(server: TestWorkflowEnvironment): Promise<void> {
  const world = await startTestWorld({ tenants: { acme: '1' } });
  const taskQueue = 'record-tokens';
  const relayer = await startRelayerProcess(world.config({ TASK_QUEUE: taskQueue }));
  try {
    const client = new Client({ connection: server.connection });
    const deps = { database: world.database, client, taskQueue };
    const paid = await registeredTestToken(world, {
      alias: 'TUSD',
      decimals: 6,
      tenants: { acme: 100n },
    });
    const short = await unregisteredFeeToken(world);
    const pay = (alias: string, amount: string) =>
      submitIntent(deps, { ...paymentRequest(world, '0'), asset: alias, amount });
    const confirmed = await pay(paid.alias, '12500000');
    const handle = client.workflow.getHandle(confirmed.workflowId);
    const file = join(__dirname, 'histories', 'payment-intent-token-confirmed.json');
    console.log(`${confirmed.workflowId}: ${(await handle.result()).status} → ${file}`);
    writeFileSync(file, historyToJSON(await handle.fetchHistory()));

    const reviewed = await pay(short.alias, parseEther('10').toString());
    const shortHandle = client.workflow.getHandle(reviewed.workflowId);
    await waitFor(
      async () =>
        (await getIntent(world.database.kysely, reviewed.intent.id)).status === 'needs_review',
      'the shortfall to wait in review',
      60_000,
    );
    const { txHash } = await getIntent(world.database.kysely, reviewed.intent.id);
    const operator = { role: 'operator' as const, keyId: 'record', label: 'record' };
    await reviewIntent({ ...deps, chains: world.chains }, operator, reviewed.intent.id, {
      action: 'confirm',
      txHash: txHash!,
    });
    const reviewFile = join(
      __dirname,
      'histories',
      'payment-intent-token-shortfall-confirmed.json',
    );
    console.log(`${reviewed.workflowId}: ${(await shortHandle.result()).status} → ${reviewFile}`);
    writeFileSync(reviewFile, historyToJSON(await shortHandle.fetchHistory()));
  } finally {
    await relayer.stop();
    await world.stop();
  }
}

/**
 * An endpoint's deliveries: a receiver refuses the first attempts (500), then takes every
 * change of two intents; the endpoint's delivery workflow as it stands once all arrived.
 */
async function recordWebhookDeliveries(server: TestWorkflowEnvironment): Promise<void> {
  const world = await startTestWorld({ tenants: { acme: '1' } });
  const taskQueue = 'record-webhooks';
  const key = randomBytes(32);
  const receiver = await WebhookReceiver.start();
  const relayer = await startRelayerProcess(
    world.config({
      TASK_QUEUE: taskQueue,
      WEBHOOK_SECRETS_KEY: key.toString('base64'),
      WEBHOOK_ALLOW_LOOPBACK: 'true',
      WEBHOOK_RETRY_INITIAL_MS: '500',
      WEBHOOK_DISPATCH_MS: '200',
    }),
  );
  try {
    const client = new Client({ connection: server.connection });
    const settings = {
      box: secretBox(key),
      policy: { allowLoopback: true },
      timeoutMs: 5000,
      rotationGraceMs: 0,
    };
    const endpoint = await registerEndpoint(
      { database: world.database, webhooks: settings },
      { role: 'tenant', tenantId: 'acme', keyId: 'recorder', label: 'recorder' },
      {
        url: receiver.url,
      },
    );
    receiver.holdSecrets([endpoint.secret]);
    receiver.mode = 'fail';
    const deps = { database: world.database, client, taskQueue };
    await submitIntent(deps, paymentRequest(world, '0.001'));
    await submitIntent(deps, paymentRequest(world, '0.002'));
    await new Promise((resolve) => setTimeout(resolve, 3000));
    receiver.mode = 'ok';
    await waitFor(() => receiver.deduped().length >= 12, 'both intents delivered', 60_000);
    const handle = client.workflow.getHandle(webhookWorkflowId(endpoint.id));
    const file = join(__dirname, 'histories', 'webhook-delivery.json');
    writeFileSync(file, historyToJSON(await handle.fetchHistory()));
    console.log(`${handle.workflowId}: ${receiver.deduped().length} events delivered → ${file}`);
  } finally {
    await relayer.stop();
    await receiver.close();
    await world.stop();
  }
}

/**
 * A batch of five items of one wallet, four at a time: they start at once and sign in input
 * order, each told its turn by the steps of the items before it. The batch's history and the
 * fourth item's (it waited for both words) are kept.
 */
async function recordWalletTurns(server: TestWorkflowEnvironment): Promise<void> {
  const world = await startTestWorld({ tenants: { acme: '1' } });
  const taskQueue = 'record-turns';
  // Two permits a second: the items after the first start while those before them still wait.
  const relayer = await startRelayerProcess(
    world.config({ TASK_QUEUE: taskQueue, THROTTLE_PER_SECOND: '2', THROTTLE_BURST: '1' }),
  );
  try {
    const deps = {
      database: world.database,
      client: new Client({ connection: server.connection }),
      taskQueue,
    };
    const { batch } = await submitBatch(
      deps,
      'acme',
      {
        mode: BatchMode.collectAll,
        concurrency: 4,
        items: [0, 1, 2, 3, 4].map(() => parseNewIntent(paymentRequest(world, '0.001'))),
      },
      'record-wallet-turns',
    );
    const batchHandle = deps.client.workflow.getHandle(batchWorkflowId(batch.id));
    const summary = await batchHandle.result();
    const batchFile = join(__dirname, 'histories', 'payment-batch-wallet-turns.json');
    writeFileSync(batchFile, historyToJSON(await batchHandle.fetchHistory()));
    console.log(`${batchHandle.workflowId}: ${JSON.stringify(summary.counts)} → ${batchFile}`);
    const [fourth] = await batchResults(world.database.kysely, batch.id, 3, 1);
    const itemHandle = deps.client.workflow.getHandle(paymentIntentWorkflowId(fourth!.intentId!));
    const itemFile = join(__dirname, 'histories', 'payment-intent-batch-item-in-turn.json');
    writeFileSync(itemFile, historyToJSON(await itemHandle.fetchHistory()));
    console.log(`${itemHandle.workflowId}: batch item in its wallet's turn → ${itemFile}`);
  } finally {
    await relayer.stop();
    await world.stop();
  }
}

/**
 * An intent whose transaction the node drops while it waits in review: the lane rule, which found
 * it in the node's pool on entering review, finds it nowhere one confirmation timeout later and
 * cancels it; the cancel is mined and the intent fails.
 */
async function recordLaneFreed(server: TestWorkflowEnvironment): Promise<void> {
  const world = await startTestWorld({ tenants: { acme: '1' } });
  const taskQueue = 'record-lane';
  const relayer = await startRelayerProcess(world.config({ TASK_QUEUE: taskQueue }));
  try {
    const client = new Client({ connection: server.connection });
    const { intent, handle } = await intentWaitingInReview(
      world,
      { client, taskQueue },
      parseNewIntent(paymentRequest(world, '0.001')),
      1500,
    );
    await world.testClient.dropTransaction({ hash: intent.txHash! });
    await waitFor(
      async () => (await getIntent(world.database.kysely, intent.id)).status === 'confirming',
      'the lane rule to cancel',
      30_000,
    );
    await world.testClient.mine({ blocks: 1 });
    const outcome = await handle.result();
    const file = join(__dirname, 'histories', 'payment-intent-lane-freed.json');
    writeFileSync(file, historyToJSON(await handle.fetchHistory()));
    console.log(`${handle.workflowId}: ${outcome.status} (${outcome.reason}) → ${file}`);
  } finally {
    await world.testClient.setAutomine(true);
    await relayer.stop();
    await world.stop();
  }
}

/**
 * An intent started with a send window of its own (SEND_WINDOW_MS, recorded in its input) that its
 * wallet cannot pay: the send is refused for the window's 3 s, the intent waits in review, and an
 * operator cancels it on-chain.
 */
async function recordSendWindowReview(server: TestWorkflowEnvironment): Promise<void> {
  const world = await startTestWorld({ tenants: { acme: '1' } });
  const taskQueue = 'record-send-window';
  const relayer = await startRelayerProcess(world.config({ TASK_QUEUE: taskQueue }));
  try {
    await world.testClient.setBalance({ address: world.wallets[0]!, value: parseEther('0.001') });
    const deps = {
      database: world.database,
      client: new Client({ connection: server.connection }),
      taskQueue,
      timings: { sendWindowMs: 3000, confirmTimeoutMs: 60_000 },
    };
    const { intent, workflowId } = await submitIntent(deps, paymentRequest(world, '0.5'));
    // The workflow's own word: the row says needs_review a moment before it waits for a decision.
    await waitFor(
      async () =>
        (await intentWorkflow(deps.client, intent.id).progress()).status === 'needs_review',
      'the intent to wait in review',
      60_000,
    );
    const operator = { role: 'operator' as const, keyId: 'record', label: 'record' };
    // Signed, so it could still be mined: the operator takes its nonce back on-chain.
    await reviewIntent({ ...deps, chains: world.chains }, operator, intent.id, {
      action: 'cancel',
      note: 'the wallet cannot pay it',
    });
    const handle = deps.client.workflow.getHandle(workflowId);
    const outcome = await handle.result();
    const file = join(__dirname, 'histories', 'payment-intent-send-window-review.json');
    writeFileSync(file, historyToJSON(await handle.fetchHistory()));
    console.log(`${workflowId}: ${outcome.status} (${outcome.reason}) → ${file}`);
  } finally {
    await relayer.stop();
    await world.stop();
  }
}

/**
 * An intent whose worker process is killed (CRASH_AT) right after its transaction was sent, before
 * Temporal heard of it: the broadcast runs again in the next process, sends the same bytes, and the
 * intent is confirmed once.
 */
async function recordCrashedRun(server: TestWorkflowEnvironment): Promise<void> {
  const world = await startTestWorld({ tenants: { acme: '1' } });
  const taskQueue = 'record-crash';
  try {
    const crashing = await spawnWorker(
      world.env({ TASK_QUEUE: taskQueue, CRASH_AT: 'after-broadcast' }),
    );
    const client = new Client({ connection: server.connection });
    const { workflowId } = await submitIntent(
      { database: world.database, client, taskQueue },
      paymentRequest(world, '0.001'),
    );
    console.log(`worker killed: ${await crashing.exited}`);
    const worker = await spawnWorker(world.env({ TASK_QUEUE: taskQueue }));
    try {
      const handle = client.workflow.getHandle(workflowId);
      const outcome = await handle.result();
      const file = join(
        __dirname,
        'histories',
        `payment-intent-${outcome.status}-after-crash.json`,
      );
      writeFileSync(file, historyToJSON(await handle.fetchHistory()));
      console.log(`${workflowId}: ${outcome.status} after a crash → ${file}`);
    } finally {
      worker.signal('SIGTERM');
      await worker.exited;
    }
  } finally {
    await world.stop();
  }
}

/**
 * An operator's decision that reaches the run before it waits in review: the worker is killed
 * (CRASH_AT after-confirm) once the confirm step has written needs_review for a token shortfall,
 * before Temporal heard of it; the decision the API sends then is accepted by the next worker
 * while the step's retry is still due, waits for the review, and is applied in it.
 */
/** A fee-on-transfer token registered as a standard one: its payment's shortfall waits in review. */
const unregisteredFeeToken = (world: TestWorld) =>
  registeredTestToken(world, {
    alias: 'TFEE',
    decimals: 18,
    kind: 'fee-on-transfer',
    tenants: { acme: 100n },
    feeOnTransfer: false,
  });

async function recordDecisionBeforeReview(server: TestWorkflowEnvironment): Promise<void> {
  const world = await startTestWorld({ tenants: { acme: '1' } });
  const taskQueue = 'record-early-decision';
  try {
    const short = await unregisteredFeeToken(world);
    const crashing = await spawnWorker(
      world.env({ TASK_QUEUE: taskQueue, CRASH_AT: 'after-confirm' }),
    );
    const client = new Client({ connection: server.connection });
    const deps = { database: world.database, client, taskQueue, chains: world.chains };
    const { intent, workflowId } = await submitIntent(deps, {
      ...paymentRequest(world, '0'),
      asset: short.alias,
      amount: parseEther('10').toString(),
    });
    console.log(`worker killed: ${await crashing.exited}`);
    const inReview = await getIntent(world.database.kysely, intent.id);
    if (inReview.status !== 'needs_review') throw new Error(`intent is ${inReview.status}`);
    const worker = await spawnWorker(world.env({ TASK_QUEUE: taskQueue }));
    try {
      const operator = { role: 'operator' as const, keyId: 'record', label: 'record' };
      await reviewIntent(deps, operator, intent.id, {
        action: 'confirm',
        txHash: inReview.txHash!,
      });
      const handle = client.workflow.getHandle(workflowId);
      const outcome = await handle.result();
      const file = join(__dirname, 'histories', 'payment-intent-decision-before-review.json');
      writeFileSync(file, historyToJSON(await handle.fetchHistory()));
      console.log(`${workflowId}: ${outcome.status}, decided before its review → ${file}`);
    } finally {
      worker.signal('SIGTERM');
      await worker.exited;
    }
  } finally {
    await world.stop();
  }
}

/**
 * The fleet's orphan sweep finding an intent that was admitted but never got its workflow (a
 * crash between the insert and the start): the sweep starts it, and it is confirmed.
 */
async function recordOrphanSweep(server: TestWorkflowEnvironment): Promise<void> {
  const world = await startTestWorld({ tenants: { acme: '1' } });
  const taskQueue = 'record-sweep';
  const relayer = await startRelayerProcess(world.config({ TASK_QUEUE: taskQueue }));
  try {
    const client = new Client({ connection: server.connection });
    const { intent } = await insertIntent(
      world.database.kysely,
      newIntentId(),
      parseNewIntent(paymentRequest(world, '0.001')),
      new Date(),
    );
    const sweep = await client.workflow.start<typeof orphanSweep>('orphanSweep', {
      taskQueue,
      workflowId: `orphan-sweep@${taskQueue}-recorded`,
      args: [{ olderThanMs: 0 }],
    });
    console.log(`sweep: ${JSON.stringify(await sweep.result())}`);
    const outcome = await client.workflow.getHandle(paymentIntentWorkflowId(intent.id)).result();
    const file = join(__dirname, 'histories', 'orphan-sweep.json');
    writeFileSync(file, historyToJSON(await sweep.fetchHistory()));
    console.log(`orphan ${intent.id}: ${outcome.status}; the sweep's history → ${file}`);
  } finally {
    await relayer.stop();
    await world.stop();
  }
}

/**
 * The fleet's finality sweep: a confirmed intent, its block then buried past anvil's finalized
 * block (two epochs of one slot), marked final.
 */
async function recordFinalitySweep(server: TestWorkflowEnvironment): Promise<void> {
  const world = await startTestWorld({ tenants: { acme: '1' }, anvil: { slotsInAnEpoch: 1 } });
  const taskQueue = 'record-finality';
  const relayer = await startRelayerProcess(
    world.config({ TASK_QUEUE: taskQueue, FINALITY_SWEEP_MS: '0' }),
  );
  try {
    const client = new Client({ connection: server.connection });
    const deps = { database: world.database, client, taskQueue };
    const { intent } = await submitIntent(deps, paymentRequest(world, '0.001'));
    await client.workflow.getHandle(paymentIntentWorkflowId(intent.id)).result();
    await world.testClient.mine({ blocks: 3 });
    const sweep = await client.workflow.start<typeof finalitySweep>('finalitySweep', {
      taskQueue,
      workflowId: `finality-sweep@${taskQueue}-recorded`,
      args: [{ limit: 500 }],
    });
    console.log(`finality sweep: ${JSON.stringify(await sweep.result())}`);
    const file = join(__dirname, 'histories', 'finality-sweep.json');
    writeFileSync(file, historyToJSON(await sweep.fetchHistory()));
    const finalizedAt = (await getIntent(world.database.kysely, intent.id)).finalizedAt;
    console.log(`${intent.id} final at ${finalizedAt?.toISOString()}; its history → ${file}`);
  } finally {
    await relayer.stop();
    await world.stop();
  }
}

/** A chain's top-up sweep finding a hot wallet low, and the top-up it started, confirmed. */
async function recordTopUp(server: TestWorkflowEnvironment): Promise<void> {
  const world = await startTestWorld({ tenants: { acme: '1' } });
  const taskQueue = 'record-top-up';
  const treasuryKey = world.anvil.keys[world.wallets.length]!;
  await world.testClient.setBalance({ address: world.wallets[0]!, value: parseEther('0.05') });
  const relayer = await startRelayerProcess(
    world.config({
      TASK_QUEUE: taskQueue,
      HOT_WALLET_KEYS: [...world.walletKeys, treasuryKey].join(','),
      TREASURY_WALLET: privateKeyToAccount(treasuryKey).address,
      LOW_BALANCE_ETH: '0.5',
      TOP_UP_TARGET_ETH: '2',
      TOP_UP_SWEEP_MS: '0',
    }),
  );
  try {
    const client = new Client({ connection: server.connection });
    const sweep = await client.workflow.start<typeof topUpSweep>('topUpSweep', {
      taskQueue,
      workflowId: `top-up-sweep@${taskQueue}/${world.anvil.chainId}-recorded`,
      args: [{ chainId: world.anvil.chainId }],
    });
    const { started } = await sweep.result();
    console.log(`top-up sweep: started ${started.join(', ')}`);
    const topUp = client.workflow.getHandle(paymentIntentWorkflowId(started[0]!));
    const outcome = await topUp.result();
    writeFileSync(
      join(__dirname, 'histories', 'top-up-sweep.json'),
      historyToJSON(await sweep.fetchHistory()),
    );
    const file = join(__dirname, 'histories', 'wallet-top-up-confirmed.json');
    writeFileSync(file, historyToJSON(await topUp.fetchHistory()));
    console.log(`top-up ${started[0]}: ${outcome.status}; its history → ${file}`);
  } finally {
    await relayer.stop();
    await world.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

/** A second key of acme's, with the approve scope (hoisted: main() is called above). */
function cfoKey() {
  return { role: 'tenant' as const, tenantId: 'acme', keyId: 'record-cfo', label: 'cfo' };
}

/**
 * Runs `record` on a world whose tenant acme (5 ETH) waits for approval from 1 ETH, a relayer
 * polling `taskQueue`, and what the services need; stops them after.
 */
async function withApprovalThreshold(
  server: TestWorkflowEnvironment,
  taskQueue: string,
  record: (
    world: TestWorld,
    deps: { database: TestWorld['database']; client: Client; taskQueue: string },
  ) => Promise<void>,
): Promise<void> {
  const world = await startTestWorld({ tenants: { acme: '5' } });
  const relayer = await startRelayerProcess(world.config({ TASK_QUEUE: taskQueue }));
  try {
    const operator = { role: 'operator' as const, keyId: 'record-op', label: 'record' };
    await setBookLimits({ database: world.database }, operator, 'acme', {
      chainId: world.anvil.chainId,
      approvalThreshold: parseEther('1'),
    });
    const client = new Client({ connection: server.connection });
    await record(world, { database: world.database, client, taskQueue });
  } finally {
    await relayer.stop();
    await world.stop();
  }
}

/**
 * Intents at their tenant's approval threshold: one approved by a second key (and paid), one
 * rejected, one that no one approved within its TTL.
 */
function recordApprovals(server: TestWorkflowEnvironment): Promise<void> {
  return withApprovalThreshold(server, 'record-approvals', async (world, services) => {
    const deps = { ...services, timings: { approvalTtlMs: 4000 } };
    const submitted = (amount: string) =>
      submitIntent(deps, paymentRequest(world, amount), { submittedBy: 'record-clerk' });
    const approved = await submitted('1');
    const rejected = await submitted('1.5');
    const expired = await submitted('2');
    await decideIntentApproval(deps, cfoKey(), approved.intent.id, 'approve', 'checked');
    await decideIntentApproval(deps, cfoKey(), rejected.intent.id, 'reject', 'duplicate');
    await recordIntentHistories(deps.client, {
      approved,
      'approval-rejected': rejected,
      'approval-expired': expired,
    });
  });
}

/**
 * A batch with an item at its tenant's approval threshold: it waits as a batch, a second key
 * approves it once, and every item (the one at the threshold too) is paid.
 */
function recordBatchApproval(server: TestWorkflowEnvironment): Promise<void> {
  return withApprovalThreshold(server, 'record-batch-approval', async (world, deps) => {
    const { batch } = await submitBatch(
      deps,
      'acme',
      {
        items: ['1', '0.1'].map((amount) => parseNewIntent(paymentRequest(world, amount))),
        concurrency: 2,
        mode: BatchMode.collectAll,
      },
      'record-batch-approval',
      'record-clerk',
    );
    await decideBatchApprovalFor(deps, cfoKey(), batch.id, 'approve', 'payroll checked');
    const handle = deps.client.workflow.getHandle(batchWorkflowId(batch.id));
    const summary = await handle.result();
    const file = join(__dirname, 'histories', 'payment-batch-approved.json');
    writeFileSync(file, historyToJSON(await handle.fetchHistory()));
    console.log(`${handle.workflowId}: ${JSON.stringify(summary.counts)} → ${file}`);
  });
}

/**
 * A fail_fast batch, one item at a time, whose second item asks for more than the tenant holds:
 * refused at admission with nothing running, the batch stops and skips the rest.
 */
async function recordBatchStopped(server: TestWorkflowEnvironment): Promise<void> {
  const world = await startTestWorld({ tenants: { acme: '1' } });
  const relayer = await startRelayerProcess(world.config({ TASK_QUEUE: 'record-batch-stop' }));
  try {
    const deps = {
      database: world.database,
      client: new Client({ connection: server.connection }),
      taskQueue: 'record-batch-stop',
    };
    const { batch } = await submitBatch(
      deps,
      'acme',
      {
        items: ['0.1', '5', '0.1'].map((amount) => parseNewIntent(paymentRequest(world, amount))),
        concurrency: 1,
        mode: BatchMode.failFast,
      },
      'record-batch-stop',
    );
    const handle = deps.client.workflow.getHandle(batchWorkflowId(batch.id));
    const summary = await handle.result();
    const file = join(__dirname, 'histories', 'payment-batch-stopped-at-admission.json');
    writeFileSync(file, historyToJSON(await handle.fetchHistory()));
    console.log(`${handle.workflowId}: ${JSON.stringify(summary.counts)} → ${file}`);
  } finally {
    await relayer.stop();
    await world.stop();
  }
}

/**
 * Intents with deadlines: one held back by its notBefore (a timer, then paid), and one at the
 * approval threshold approved after its validUntil (expired, nothing signed).
 */
function recordDeadlines(server: TestWorkflowEnvironment): Promise<void> {
  return withApprovalThreshold(server, 'record-deadlines', async (world, deps) => {
    const now = Date.now();
    const later = await submitIntent(deps, {
      ...paymentRequest(world, '0.5'),
      notBefore: new Date(now + 3000).toISOString(),
      validUntil: new Date(now + 600_000).toISOString(),
    });
    const tooLate = await submitIntent(
      deps,
      { ...paymentRequest(world, '2'), validUntil: new Date(now + 2000).toISOString() },
      { submittedBy: 'record-clerk' },
    );
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await decideIntentApproval(deps, cfoKey(), tooLate.intent.id, 'approve', 'late');
    await recordIntentHistories(deps.client, { 'not-before': later, expired: tooLate });
  });
}

/** An intent admitted while its tenant is paused: refused a permit, told of the resume, paid. */
async function recordPausedIntent(server: TestWorkflowEnvironment): Promise<void> {
  const world = await startTestWorld({ tenants: { acme: '1' } });
  const taskQueue = 'record-pauses';
  const relayer = await startRelayerProcess(world.config({ TASK_QUEUE: taskQueue }));
  try {
    const client = new Client({ connection: server.connection });
    const deps = { database: world.database, client, chains: world.chains, taskQueue };
    const operator = { role: 'operator' as const, keyId: 'record-op', label: 'record' };
    const { pause: paused } = await pause(deps, operator, {
      scope: PauseScope.tenant,
      tenantId: 'acme',
      note: 'recorded',
    });
    // The workers read the pauses in force every second.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const { workflowId } = await submitIntent(deps, paymentRequest(world, '0.1'));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await resume(deps, operator, paused.id, 'recorded');
    await recordIntentHistories(client, { 'paused-resumed': { workflowId } });
  } finally {
    await relayer.stop();
    await world.stop();
  }
}

/** Waits for each intent's run to end and stores its history as payment-intent-<name>.json. */
async function recordIntentHistories(
  client: Client,
  runs: Record<string, { workflowId: string }>,
): Promise<void> {
  for (const [name, { workflowId }] of Object.entries(runs)) {
    const handle = client.workflow.getHandle(workflowId);
    const outcome = await handle.result();
    const file = join(__dirname, 'histories', `payment-intent-${name}.json`);
    writeFileSync(file, historyToJSON(await handle.fetchHistory()));
    console.log(`${workflowId}: ${outcome.status} → ${file}`);
  }
}
