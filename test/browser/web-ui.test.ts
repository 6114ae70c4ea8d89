import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { parseNewIntent } from '../../domain/intent-request';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';
import { submitBatch } from '../../service/submit-batch';
import { batchResults } from '../../store/batch-results';
import { BatchMode, batchWorkflowId } from '../../domain/batch';
import { submitIntent } from '../../service/submit-intent';
import { ensureChromium, offlineChromiumArgs } from '../harness/stack/chromium';
import { freePort } from '../harness/stack/free-port';
import { startLocalWorld, type LocalWorld } from '../harness/stack/local-world';
import { startDevServer } from '../harness/stack/temporal-servers';
import { workflowsListedInWebUi } from '../harness/stack/web-ui-list';
import { startRelayerProcess, type RelayerProcess } from '../../workers/relayer-process';
import { waitUntilSettled } from '../harness/intents';
import { createTenant, deposit } from '../../store/ledger';
import { setBookLimits } from '../../service/policy-limits';
import { decideIntentApproval } from '../../service/approve-intent';
import { intentWaitingInReview } from '../harness/intent-in-review';

/**
 * What an operator sees: the embedded stack with its Web UI, a few intents (three confirmed, one
 * waiting in needs_review, a batch of two from another wallet), and the UI's workflow list
 * filtered by the relayer's search attributes in a real (headless, offline) Chromium. Screenshots land in test-output/ for a
 * person to look at.
 */
const screenshots = resolve(__dirname, '../../test-output');
let server: TestWorkflowEnvironment;
let uiUrl: string;
let world: LocalWorld;
let relayer: RelayerProcess;
let browser: Browser;
beforeAll(async () => {
  const uiPort = await freePort();
  server = await startDevServer({ uiPort });
  uiUrl = `http://127.0.0.1:${uiPort}`;
  world = await startLocalWorld({ temporalAddress: server.address, tenants: { acme: '10' } });
  relayer = await startRelayerProcess(world.config({ CONFIRM_POLL_INTERVAL_MS: '100' }));
  browser = await chromium.launch({
    executablePath: (await ensureChromium()).path,
    args: offlineChromiumArgs,
    headless: true,
  });
  mkdirSync(screenshots, { recursive: true });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await world?.testClient.setAutomine(true);
  await relayer?.stop();
  await world?.stop();
  await server?.teardown();
});

const listWorkflows = (page: Page, query: string, expected: string[], shot: string) =>
  workflowsListedInWebUi(page, uiUrl, query, expected, join(screenshots, shot));

describe('the Temporal Web UI, filtered by the relayer’s search attributes', () => {
  it('lists the confirmed intents under IntentStatus, and the needs_review queue of one tenant with one filter', async () => {
    const client = new Client({ connection: server.connection });
    const deps = { database: world.database, client, taskQueue: 'payment-relayer' };
    const payment = () => ({
      tenantId: 'acme',
      chainId: world.anvil.chainId,
      from: world.wallets[0]!,
      to: privateKeyToAccount(generatePrivateKey()).address,
      amount: parseEther('0.01').toString(),
    });
    const confirmed = await Promise.all([1, 2, 3].map(() => submitIntent(deps, payment())));
    await waitUntilSettled(world, 3, 60_000);

    // One more whose transaction the node holds but never mines: it waits in review.
    const { handle: reviewRun } = await intentWaitingInReview(
      world,
      deps,
      parseNewIntent(payment()),
      1000,
    );

    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    const confirmedIds = confirmed.map((submitted) => submitted.workflowId);
    const confirmedList = await listWorkflows(
      page,
      'IntentStatus = "confirmed"',
      confirmedIds,
      'web-ui-confirmed.png',
    );
    expect(confirmedList).not.toContain(reviewRun.workflowId);

    // An intent's memo says what it pays, to whom, from where, on which chain.
    const [first] = confirmed;
    const { runId } = await client.workflow.getHandle(first!.workflowId).describe();
    await page.goto(`${uiUrl}/namespaces/default/workflows/${first!.workflowId}/${runId}/memo`);
    await page.getByText('"fields"').waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(screenshots, 'web-ui-memo.png'), fullPage: true });
    // The tab shows the memo as JSON, a line per element: the text from its first brace.
    const shown = await page.locator('main').innerText();
    const json = shown.slice(shown.indexOf('{'), shown.lastIndexOf('}') + 1);
    const memo = JSON.parse(json) as { fields: Record<string, unknown> };
    expect(memo.fields).toEqual({
      asset: 'native',
      amount: first!.intent.amount.toString(),
      from: first!.intent.from,
      to: first!.intent.to,
      chainId: world.anvil.chainId,
    });

    const queue = await listWorkflows(
      page,
      'IntentStatus = "needs_review" AND TenantId = "acme"',
      [reviewRun.workflowId],
      'web-ui-needs-review-acme.png',
    );
    for (const workflowId of confirmedIds) expect(queue).not.toContain(workflowId);

    // A batch and its items share BatchId; every intent carries its chain and sending wallet.
    await world.testClient.setAutomine(true);
    const { batch } = await submitBatch(
      deps,
      'acme',
      {
        mode: BatchMode.collectAll,
        concurrency: 2,
        items: [1, 2].map(() => ({ ...parseNewIntent(payment()), from: world.wallets[1]! })),
      },
      'browser-batch',
    );
    await client.workflow.getHandle(batchWorkflowId(batch.id)).result();
    const items = await batchResults(world.database.kysely, batch.id, 0, 10);
    const itemIds = items.map((item) => paymentIntentWorkflowId(item.intentId!));
    await listWorkflows(
      page,
      `BatchId = "${batch.id}"`,
      [batchWorkflowId(batch.id), ...itemIds],
      'web-ui-batch.png',
    );
    const byWallet = await listWorkflows(
      page,
      `ChainId = ${world.anvil.chainId} AND Wallet = "${world.wallets[1]}"`,
      itemIds,
      'web-ui-wallet.png',
    );
    for (const workflowId of confirmedIds) expect(byWallet).not.toContain(workflowId);
    await page.close();
  }, 180_000);

  it('lists the intents awaiting approval with one filter, and no longer once approved', async () => {
    const client = new Client({ connection: server.connection });
    const deps = { database: world.database, client, taskQueue: 'payment-relayer' };
    const operator = { role: 'operator' as const, keyId: 'browser-op', label: 'browser' };
    await createTenant(world.database, { id: 'foureyes', name: 'foureyes' }, new Date());
    await deposit(world.database, 'foureyes', parseEther('5'), new Date(), world.nativeBook);
    await setBookLimits({ database: world.database }, operator, 'foureyes', {
      chainId: world.anvil.chainId,
      approvalThreshold: parseEther('1'),
    });
    const { intent, workflowId } = await submitIntent(
      deps,
      {
        tenantId: 'foureyes',
        chainId: world.anvil.chainId,
        to: privateKeyToAccount(generatePrivateKey()).address,
        amount: parseEther('2').toString(),
      },
      { submittedBy: 'browser-clerk' },
    );
    expect(intent.status).toBe('awaiting_approval');
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    await listWorkflows(
      page,
      'IntentStatus = "awaiting_approval"',
      [workflowId],
      'web-ui-awaiting-approval.png',
    );
    const cfo = {
      role: 'tenant' as const,
      tenantId: 'foureyes',
      keyId: 'browser-cfo',
      label: 'cfo',
    };
    await decideIntentApproval(deps, cfo, intent.id, 'approve');
    expect((await client.workflow.getHandle(workflowId).result()).status).toBe('confirmed');
    await listWorkflows(
      page,
      `IntentStatus = "confirmed" AND TenantId = "foureyes"`,
      [workflowId],
      'web-ui-approved.png',
    );
    await page.close();
  });
});
