import { Client, Connection } from '@temporalio/client';
import { parseEther } from 'viem';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';
import { freePort } from '../harness/stack/free-port';
import { waitFor } from '../harness/stack/wait-for';
import { createKeys, databaseSnapshot, paymentBody } from '../harness/api';
import { expectInvariants } from '../harness/invariants';
import { useWorld } from '../harness/test-world';

const deposits = { acme: parseEther('100'), globex: parseEther('100') };
const world = useWorld({ proxy: true });

jest.setTimeout(120_000);

describe('the API under duplicate and bad submissions (an API process beside a worker)', () => {
  let api: string;
  let keys: Record<'acme' | 'operator', string>;
  let client: Client;
  let connection: Connection;
  const taskQueue = 'duplicates';
  beforeAll(async () => {
    const port = await freePort();
    await world.spawnWorkers(1, { TASK_QUEUE: taskQueue });
    await world.spawnApi({ TASK_QUEUE: taskQueue, API_PORT: String(port) });
    api = `http://127.0.0.1:${port}`;
    keys = await createKeys(world, ['acme']);
    connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
    client = new Client({ connection });
  });
  afterAll(() => connection?.close());

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${api}/v1/intents`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${keys.acme}`,
        'content-type': 'application/json',
        ...headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('the same Idempotency-Key 25 times at once: one intent, one workflow, one transaction', async () => {
    const body = paymentBody(world, parseEther('0.01').toString());
    const answers = await Promise.all(
      Array.from({ length: 25 }, () => post(body, { 'idempotency-key': 'order-4711' })),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([...Array(24).fill(200), 202]);
    const ids = new Set(
      await Promise.all(answers.map(async (a) => ((await a.json()) as { id: string }).id)),
    );
    expect(ids.size).toBe(1);
    const [id] = [...ids] as [string];

    await waitFor(async () => (await intentStatus(id)) === 'confirmed', `${id} confirmed`);
    const runs = [];
    for await (const run of client.workflow.list({
      query: `WorkflowId = '${paymentIntentWorkflowId(id)}'`,
    })) {
      runs.push(run);
    }
    expect(runs).toHaveLength(1);
    const attempts = await world.database.kysely
      .selectFrom('transaction_attempts')
      .select('tx_hash')
      .where('intent_id', '=', id)
      .execute();
    expect(attempts).toHaveLength(1);
    expect([...world.proxy!.sentTxHashes()]).toEqual([attempts[0]!.tx_hash]);
    await expectInvariants({ world, deposits, accepted: [id], proxy: world.proxy });
  });

  it('bad input gets a typed error and leaves no row, no workflow and no RPC call behind', async () => {
    const good = paymentBody(world);
    const cases: [string, unknown, Record<string, string>, number, string][] = [
      ['no Idempotency-Key', good, {}, 400, 'invalid_request'],
      ['not JSON', '{"chainId":', { 'idempotency-key': 'b1' }, 400, 'malformed_body'],
      [
        'a bad address',
        { ...good, to: '0x1234' },
        { 'idempotency-key': 'b2' },
        400,
        'invalid_request',
      ],
      [
        'a negative amount',
        { ...good, amount: '-1' },
        { 'idempotency-key': 'b3' },
        400,
        'invalid_request',
      ],
      [
        'a zero amount',
        { ...good, amount: '0' },
        { 'idempotency-key': 'b4' },
        400,
        'invalid_request',
      ],
      [
        'a fractional amount',
        { ...good, amount: '1.5' },
        { 'idempotency-key': 'b5' },
        400,
        'invalid_request',
      ],
      [
        'an unknown chain',
        { ...good, chainId: 999 },
        { 'idempotency-key': 'b6' },
        400,
        'invalid_request',
      ],
      [
        'a wallet not ours',
        { ...good, from: '0x000000000000000000000000000000000000dEaD' },
        { 'idempotency-key': 'b7' },
        400,
        'invalid_request',
      ],
      [
        'more than the balance',
        { ...good, amount: parseEther('1000').toString() },
        { 'idempotency-key': 'b8' },
        422,
        'insufficient_balance',
      ],
      [
        'a reused key, another body',
        { ...good, amount: '7' },
        { 'idempotency-key': 'order-4711' },
        422,
        'idempotency_key_reused',
      ],
    ];
    const rowsBefore = await databaseSnapshot(world);
    const workflowsBefore = await workflowCount();
    const callsBefore = world.proxy!.calls.length;
    for (const [what, body, headers, status, code] of cases) {
      const answer = await post(body, headers);
      expect({
        what,
        status: answer.status,
        code: ((await answer.json()) as { code: string }).code,
      }).toEqual({
        what,
        status,
        code,
      });
    }
    expect(await databaseSnapshot(world)).toEqual(rowsBefore);
    expect(await workflowCount()).toBe(workflowsBefore);
    expect(world.proxy!.calls.slice(callsBefore)).toEqual([]);
  });

  const intentStatus = async (id: string) =>
    (
      await world.database.kysely
        .selectFrom('intents')
        .select('status')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).status;

  async function workflowCount(): Promise<number> {
    return (await client.workflow.count(`TaskQueue = '${taskQueue}'`)).count;
  }
});
