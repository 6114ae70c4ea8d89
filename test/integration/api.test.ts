import type { RelayerApiClient } from '../../cli/api-client';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';
import { IntentStatus } from '../../domain/intent';
import {
  createKeys,
  databaseSnapshot,
  paymentBody,
  startApiWithoutWorkers,
  type ApiUnderTest,
} from '../harness/api';
import { waitFor } from '../harness/stack/wait-for';
import { apiRefusal as refusal } from '../harness/api';
import { useWorld, type TestWorld } from '../harness/test-world';

const world = useWorld({ tenants: { acme: '10', globex: '10' } });
let api: ApiUnderTest;
let keys: Record<'acme' | 'globex' | 'operator', string>;
let acme: RelayerApiClient;
let globex: RelayerApiClient;
let operator: RelayerApiClient;
beforeAll(async () => {
  api = await startApiWithoutWorkers(world, { tenantMaxInFlight: 50 });
  keys = await createKeys(world, ['acme', 'globex']);
  acme = api.as(keys.acme);
  globex = api.as(keys.globex);
  operator = api.as(keys.operator);
});
world.onStop(async () => {
  await api?.close();
});

describe('POST /v1/intents', () => {
  it('starts a new intent (202), returns it again for the same key and body (200)', async () => {
    const first = await acme.submit(paymentBody(world), 'order-1');
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ status: 'authorized', tenantId: 'acme', amount: '1000' });
    const again = await acme.submit(paymentBody(world), 'order-1');
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    // Visibility is eventually consistent: the run shows within seconds (one run, both answers).
    const runs = async () =>
      (await api.client.workflow.count(`WorkflowId = "${paymentIntentWorkflowId(first.body.id)}"`))
        .count;
    await waitFor(async () => (await runs()) > 0, 'the run in visibility', 10_000);
    expect(await runs()).toBe(1);
  });

  it('refuses the same key with another body, and writes nothing', async () => {
    await acme.submit(paymentBody(world, '5'), 'order-2');
    const before = await databaseSnapshot(world);
    const error = await refusal(acme.submit(paymentBody(world, '6'), 'order-2'));
    expect(error.status).toBe(422);
    expect(error.body.code).toBe('idempotency_key_reused');
    expect(await databaseSnapshot(world)).toEqual(before);
  });

  it('a payment or a batch row on a chain this relayer does not serve is refused naming the chains it serves; nothing written', async () => {
    const before = await databaseSnapshot(world);
    const single = await refusal(acme.submit({ ...paymentBody(world), chainId: 1 }, 'chain-1'));
    expect([single.status, single.body.code, single.body.message]).toEqual([
      400,
      'invalid_request',
      `chain 1 is not served by this relayer: it has hot wallets on chain ${world.anvil.chainId}`,
    ]);
    const rows = [paymentBody(world), { ...paymentBody(world), chainId: 1 }];
    const batch = await refusal(acme.submitBatch({ items: rows }, 'chain-1-batch'));
    expect([batch.status, batch.body.message]).toEqual([
      400,
      `item 1: chain 1 is not served by this relayer: it has hot wallets on chain ${world.anvil.chainId}`,
    ]);
    expect(await databaseSnapshot(world)).toEqual(before);
  });

  it('the same key from two tenants is two intents', async () => {
    const a = await acme.submit(paymentBody(world), 'shared-key');
    const g = await globex.submit(paymentBody(world), 'shared-key');
    expect(a.body.id).not.toBe(g.body.id);
    expect(g.body.tenantId).toBe('globex');
  });

  it.each([
    ['no Idempotency-Key', { body: paymentBody }, 'invalid_request', 400],
    [
      'a body with a tenantId',
      { body: (w: TestWorld) => ({ ...paymentBody(w), tenantId: 'globex' }) },
      'invalid_request',
      400,
    ],
    ['a zero amount', { body: (w: TestWorld) => paymentBody(w, '0') }, 'invalid_request', 400],
    [
      'more than the balance',
      { body: (w: TestWorld) => paymentBody(w, '100000000000000000000') },
      'insufficient_balance',
      422,
    ],
  ])('%s is refused with a code and writes nothing', async (_case, { body }, code, status) => {
    const before = await databaseSnapshot(world);
    const headers: Record<string, string> =
      _case === 'no Idempotency-Key'
        ? {}
        : { 'idempotency-key': `k-${_case.replaceAll(' ', '-')}` };
    const error = await refusal(acme.call('POST', '/v1/intents', { body: body(world), headers }));
    expect({ status: error.status, code: error.body.code }).toEqual({ status, code });
    expect(await databaseSnapshot(world)).toEqual(before);
  });

  it('no key or a wrong key is a 401 that writes nothing', async () => {
    const before = await databaseSnapshot(world);
    for (const client of [
      api.as(),
      api.as('rly_0000000000000000_' + 'a'.repeat(43)),
      api.as(keys.acme.slice(0, -1) + 'x'),
    ]) {
      const error = await refusal(client.submit(paymentBody(world), 'k-401'));
      expect({ status: error.status, code: error.body.code }).toEqual({
        status: 401,
        code: 'unauthorized',
      });
    }
    expect(await databaseSnapshot(world)).toEqual(before);
  });

  it('an operator key cannot submit (403)', async () => {
    const error = await refusal(operator.submit(paymentBody(world), 'k-op'));
    expect({ status: error.status, code: error.body.code }).toEqual({
      status: 403,
      code: 'forbidden',
    });
  });
});

describe('reading and listing', () => {
  it('pages through a tenant’s intents, newest first, with a status filter', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await globex.submit(paymentBody(world, String(100 + i)), `page-${i}`)).body.id);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await globex.list({ limit: 2, cursor, status: 'authorized' });
      expect(page.intents.length).toBeLessThanOrEqual(2);
      seen.push(...page.intents.map((intent) => intent.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen.filter((id) => ids.includes(id))).toEqual([...ids].reverse());
    expect((await globex.list({ status: 'confirmed' })).intents).toEqual([]);
    expect((await globex.get(ids[0]!)).id).toBe(ids[0]);
    // Not signed yet (no workers here): no attempts.
    expect(await globex.attempts(ids[0]!)).toEqual([]);
  });

  it('refuses a query it does not understand', async () => {
    for (const query of [
      '?status=nope',
      '?limit=0',
      '?limit=abc',
      '?cursor=garbage',
      '?colour=red',
    ]) {
      const error = await refusal(acme.call('GET', `/v1/intents${query}`));
      expect({ query, status: error.status, code: error.body.code }).toEqual({
        query,
        status: 400,
        code: 'invalid_request',
      });
    }
  });
});

describe('tenant isolation', () => {
  it('another tenant’s intent is a 404 on every endpoint, and absent from its lists', async () => {
    const { body: intent } = await acme.submit(paymentBody(world), 'isolated');
    const before = await databaseSnapshot(world);
    for (const call of [
      globex.get(intent.id),
      globex.cancel(intent.id),
      globex.audit(intent.id),
      globex.attempts(intent.id),
    ]) {
      const error = await refusal(call);
      expect({ status: error.status, code: error.body.code }).toEqual({
        status: 404,
        code: 'not_found',
      });
    }
    for (const action of ['confirm', 'fail', 'retry'] as const) {
      const error = await refusal(
        globex.review(
          intent.id,
          action,
          action === 'confirm' ? { txHash: `0x${'1'.repeat(64)}` } : { reason: 'x' },
        ),
      );
      // Refused for the key's scopes before its body is even read.
      expect({ status: error.status, code: error.body.code }).toEqual({
        status: 403,
        code: 'scope_missing',
      });
    }
    const globexIds = (await globex.list({ limit: 200 })).intents.map((i) => i.id);
    expect(globexIds).not.toContain(intent.id);
    // Asking for acme's list is refused, not answered with globex's own as if it were acme's.
    const filtered = await refusal(globex.list({ tenantId: 'acme', limit: 200 }));
    expect({ status: filtered.status, code: filtered.body.code }).toEqual({
      status: 403,
      code: 'forbidden',
    });
    expect(await databaseSnapshot(world)).toEqual(before);
    // The operator sees it.
    expect((await operator.get(intent.id)).id).toBe(intent.id);
  });
});

describe('cancel', () => {
  it('cancels before anything was signed, releases nothing it did not hold, and records who', async () => {
    const { body: intent } = await acme.submit(paymentBody(world), 'to-cancel');
    const cancelled = await acme.cancel(intent.id);
    expect(cancelled).toMatchObject({ status: IntentStatus.cancelled });
    expect(cancelled.reasonCode).toBe('cancelled_by_caller');
    expect((await acme.cancel(intent.id)).status).toBe('cancelled');
    const audit = await acme.audit(intent.id);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: 'cancel',
      actor: expect.stringMatching(/^tenant acme /),
      detail: { from: 'authorized' },
    });
  });

  it('takes a JSON content type with no body, as curl sends it; refuses a body where none is taken; a route that needs one says so', async () => {
    const { body: intent } = await acme.submit(paymentBody(world), 'cancel-by-curl');
    const post = (path: string, body?: string) =>
      fetch(`${api.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.acme}`, 'content-type': 'application/json' },
        body,
      });
    // A cancel takes a note only: anything else is refused, not dropped without a word.
    const withReason = await post(`/v1/intents/${intent.id}/cancel`, '{"reason":"withdrawn"}');
    expect(withReason.status).toBe(400);
    expect(await withReason.text()).toMatch(/Unrecognized key: \\"reason\\"/);
    expect((await acme.get(intent.id)).status).toBe('authorized');
    const cancelled = await post(`/v1/intents/${intent.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(((await cancelled.json()) as { status: string }).status).toBe('cancelled');
    const noPayment = await post('/v1/intents');
    expect(noPayment.status).toBe(400);
    expect(await noPayment.json()).toMatchObject({
      code: 'invalid_request',
      issues: [expect.objectContaining({ field: 'body' })],
    });
  });

  it('refuses a signed intent whose workflow has ended (409 not_cancellable, saying why)', async () => {
    const { body: intent } = await acme.submit(paymentBody(world), 'signed-already');
    await api.client.workflow.getHandle(paymentIntentWorkflowId(intent.id)).terminate();
    await world.database.kysely
      .updateTable('intents')
      .set({ status: 'signed', nonce: 9999, tx_hash: `0x${'ab'.repeat(32)}`, raw_tx: '0x01' })
      .where('id', '=', intent.id)
      .execute();
    const error = await refusal(acme.cancel(intent.id));
    expect({ status: error.status, code: error.body.code }).toEqual({
      status: 409,
      code: 'not_cancellable',
    });
    expect(error.body.details).toMatchObject({ status: 'signed', problem: 'ended' });
    expect(error.body.message).toMatch(/its workflow has ended, so nothing would follow a cancel/);
  });
});

describe('health, readiness, OpenAPI, metrics', () => {
  it('answers', async () => {
    expect((await api.as().call('GET', '/healthz')).body).toEqual({ status: 'ok' });
    expect((await api.as().call('GET', '/readyz')).body).toMatchObject({ ready: true });
    const openapi = (
      await api
        .as()
        .call<{ openapi: string; paths: Record<string, unknown> }>('GET', '/openapi.json')
    ).body;
    expect(openapi.openapi).toMatch(/^3\./);
    expect(Object.keys(openapi.paths)).toEqual(
      expect.arrayContaining([
        '/v1/intents',
        '/v1/intents/{id}',
        '/v1/intents/{id}/cancel',
        '/v1/intents/{id}/review/confirm',
      ]),
    );
    const metrics = (await api.as().call<string>('GET', '/metrics')).body;
    expect(metrics).toMatch(/relayer_intents_rejected_total\{reason="idempotency_key_reused"\} 1/);
    const cancelled = await world.database.kysely
      .selectFrom('intents')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('status', '=', 'cancelled')
      .executeTakeFirstOrThrow();
    expect(Number(cancelled.count)).toBeGreaterThan(0);
    expect(metrics).toContain(`relayer_intents{status="cancelled"} ${cancelled.count}`);
  });

  it('a closing process refuses new intents with 503 closed and is not ready', async () => {
    api.api.startClosing();
    const error = await refusal(acme.submit(paymentBody(world), 'too-late'));
    expect({ status: error.status, code: error.body.code }).toEqual({
      status: 503,
      code: 'closed',
    });
    await expect(api.as().call('GET', '/readyz')).rejects.toMatchObject({ status: 503 });
  });
});
