import { parseEther } from 'viem';
import type { RelayerApiClient } from '../../cli/api-client';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';
import { requireUniqueReferences } from '../../store/caller-references';
import { createTenant, deposit } from '../../store/ledger';
import { paymentReferenceKey } from '../../workflows/search-attributes';
import { createApiKey } from '../../service/api-keys';
import { apiRefusal as refusal, createKeys, databaseSnapshot, paymentBody } from '../harness/api';
import { startApiWithoutWorkers, type ApiUnderTest } from '../harness/api';
import { useWorld } from '../harness/test-world';
import { waitFor } from '../harness/stack/wait-for';
import { relayerCliInProcessWith } from '../harness/relayer-cli';

// Integration tier (~8 s): the caller's reference and metadata through the API (no workers: the
// intents wait authorized, their workflows started and unrun) — on every view and the webhook
// outbox, searched through the side table, refused at their limits writing nothing, compared by
// the Idempotency-Key's same-body check, unique per tenant when asked, a search attribute, and
// erased by a redact from every place they were kept.

const world = useWorld({ tenants: {} });
let api: ApiUnderTest;
let tenant: Record<'payouts' | 'other', RelayerApiClient>;
let operator: RelayerApiClient;
let redactor: RelayerApiClient;
let cliKeys: { payouts: string; redactor: string };
const relayerCli = relayerCliInProcessWith(() => ({
  RELAYER_API_URL: api.url,
  DATABASE_URL: world.databaseUrl,
}));

beforeAll(async () => {
  for (const id of ['payouts', 'other']) {
    await createTenant(world.database, { id, name: id, maxInFlight: 100 }, new Date());
    await deposit(world.database, id, parseEther('100'), new Date(), world.nativeBook);
  }
  // An endpoint of the tenant's: its intents' changes are kept in the outbox (no pump sends them).
  await world.database.kysely
    .insertInto('webhook_endpoints')
    .values({
      id: 'we_references',
      tenant_id: 'payouts',
      url: 'https://hooks.example.com/payouts',
      event_types: '["*"]',
      secret: 'not used: nothing is sent',
      previous_secret: null,
      previous_secret_until: null,
      status: 'active',
      disabled_reason: null,
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
    })
    .execute();
  api = await startApiWithoutWorkers(world, { tenantMaxInFlight: 100 });
  const keys = await createKeys(world, ['payouts', 'other']);
  tenant = { payouts: api.as(keys.payouts), other: api.as(keys.other) };
  operator = api.as(keys.operator);
  const redactKey = await createApiKey(
    world.database,
    { role: 'operator', label: 'erasures', scopes: ['intents:read', 'intents:write', 'redact'] },
    new Date(),
  );
  redactor = api.as(redactKey.apiKey);
  cliKeys = { payouts: keys.payouts, redactor: redactKey.apiKey };
});
world.onStop(() => api?.close());

let keys = 0;
const submit = (
  who: keyof typeof tenant,
  marks: { reference?: unknown; metadata?: unknown },
  key = `ref-${++keys}`,
) => tenant[who].submit({ ...paymentBody(world), ...(marks as object) }, key);

it('comes back on the intent and its webhook event; found by reference and by a key, the tenant’s own only', async () => {
  const payout = await submit('payouts', {
    reference: 'po_1001',
    metadata: { invoice: 'INV-7', customer: 'cus_42' },
  });
  expect(payout.status).toBe(202);
  expect(payout.body).toMatchObject({
    reference: 'po_1001',
    metadata: { invoice: 'INV-7', customer: 'cus_42' },
  });
  const sibling = await submit('payouts', { metadata: { invoice: 'INV-8', customer: 'cus_42' } });
  // Another tenant's intent with the same reference and values is not theirs to find.
  await submit('other', { reference: 'po_1001', metadata: { invoice: 'INV-7' } });

  const byReference = await tenant.payouts.list({ reference: 'po_1001' });
  expect(byReference.intents.map((intent) => intent.id)).toEqual([payout.body.id]);
  const byCustomer = await tenant.payouts.list({ metadata: { customer: 'cus_42' } });
  expect(byCustomer.intents.map((intent) => intent.id)).toEqual([sibling.body.id, payout.body.id]);
  const byBoth = await tenant.payouts.list({ metadata: { customer: 'cus_42', invoice: 'INV-7' } });
  expect(byBoth.intents.map((intent) => intent.id)).toEqual([payout.body.id]);
  expect((await tenant.payouts.get(payout.body.id)).metadata).toEqual({
    invoice: 'INV-7',
    customer: 'cus_42',
  });

  const [event] = await world.database.kysely
    .selectFrom('webhook_events')
    .select('body')
    .where('intent_id', '=', payout.body.id)
    .execute();
  expect(JSON.parse(event!.body).data.intent).toMatchObject({
    reference: 'po_1001',
    metadata: { invoice: 'INV-7', customer: 'cus_42' },
  });

  const description = await api.client.workflow
    .getHandle(paymentIntentWorkflowId(payout.body.id))
    .describe();
  expect(description.typedSearchAttributes.get(paymentReferenceKey)).toBe('po_1001');
});

it.each([
  ['reference', { reference: 'x'.repeat(129) }, 'at most 128 characters'],
  ['reference', { reference: 'po\u0000' }, 'printable'],
  ['reference', { reference: '  ' }, 'must not be empty'],
  ['metadata', { metadata: { invoice: 7 } }, 'must be a string'],
  ['metadata', { metadata: { ['k'.repeat(41)]: 'v' } }, 'at most 40 characters'],
  ['metadata', { metadata: { 'has space': 'v' } }, 'letters, digits'],
  ['metadata', { metadata: { note: 'v'.repeat(501) } }, 'at most 500 characters'],
  [
    'metadata',
    { metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) },
    'at most 20 keys',
  ],
  [
    'metadata',
    {
      metadata: Object.fromEntries(
        Array.from({ length: 10 }, (_, i) => [`k${i}`, 'v'.repeat(450)]),
      ),
    },
    'at most 4096 bytes',
  ],
])('refuses %s %#: the field named, nothing written', async (field, marks, words) => {
  const before = await databaseSnapshot(world);
  const refused = await refusal(submit('payouts', marks));
  expect(refused.status).toBe(400);
  expect(refused.body.issues).toEqual([
    expect.objectContaining({ field: expect.stringContaining(field) }),
  ]);
  expect(refused.body.issues?.[0]?.message).toContain(words);
  expect(await databaseSnapshot(world)).toEqual(before);
});

it('takes a retry that repeats them or leaves them out; refuses one with other metadata (422)', async () => {
  const first = await submit('payouts', { reference: 'po_2', metadata: { a: '1' } }, 'same-key');
  const again = await submit('payouts', { reference: 'po_2', metadata: { a: '1' } }, 'same-key');
  expect([again.status, again.body.id]).toEqual([200, first.body.id]);
  const without = await submit('payouts', {}, 'same-key');
  expect([without.status, without.body.id]).toEqual([200, first.body.id]);
  const other = await refusal(submit('payouts', { metadata: { a: '2' } }, 'same-key'));
  expect([other.status, other.body.code]).toEqual([422, 'idempotency_key_reused']);
});

it('holds a reference unique when the tenant asks: the second refused 409 naming the first, nothing written', async () => {
  await requireUniqueReferences(world.database.kysely, 'payouts', true);
  try {
    const first = await submit('payouts', { reference: 'po_unique' });
    expect(first.status).toBe(202);
    const before = await databaseSnapshot(world);
    const second = await refusal(submit('payouts', { reference: 'po_unique' }));
    expect([second.status, second.body.code, second.body.details]).toEqual([
      409,
      'reference_taken',
      { reference: 'po_unique', intentId: first.body.id },
    ]);
    expect(second.body.advice).toContain('reference of its own');
    expect(await databaseSnapshot(world)).toEqual(before);
    // Another tenant's references are its own.
    expect((await submit('other', { reference: 'po_unique' })).status).toBe(202);
  } finally {
    await requireUniqueReferences(world.database.kysely, 'payouts', false);
  }
});

it('redacts an ended intent everywhere: its row, the search, its events, its workflow; refuses an open one', async () => {
  const payout = await submit('payouts', { reference: 'po_erase', metadata: { name: 'Ada' } });
  const open = await refusal(redactor.redact(payout.body.id));
  expect([open.status, open.body.code]).toEqual([409, 'intent_open']);
  const scopeless = await refusal(operator.redact(payout.body.id));
  expect([scopeless.status, scopeless.body.code]).toEqual([403, 'scope_missing']);

  await tenant.payouts.cancel(payout.body.id);
  const redacted = await redactor.redact(payout.body.id, 'erasure request 17');
  expect([redacted.reference, redacted.metadata, redacted.status]).toEqual([null, {}, 'cancelled']);
  expect((await tenant.payouts.list({ reference: 'po_erase' })).intents).toEqual([]);
  expect((await tenant.payouts.list({ metadata: { name: 'Ada' } })).intents).toEqual([]);
  const rows = await world.database.kysely
    .selectFrom('intent_metadata')
    .selectAll()
    .where('intent_id', '=', payout.body.id)
    .execute();
  expect(rows).toEqual([]);
  const events = await world.database.kysely
    .selectFrom('webhook_events')
    .select('body')
    .where('intent_id', '=', payout.body.id)
    .execute();
  expect(events.length).toBeGreaterThanOrEqual(2);
  expect(events.map((event) => event.body).join()).not.toMatch(/po_erase|Ada/);
  // Temporal deletes an execution in the background, soon after it accepted the request.
  const handle = api.client.workflow.getHandle(paymentIntentWorkflowId(payout.body.id));
  await waitFor(
    () =>
      handle.describe().then(
        () => false,
        (error: Error) => /not found/i.test(error.message),
      ),
    'the workflow deleted',
    20_000,
  );
  expect(await tenant.payouts.audit(payout.body.id)).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ action: 'redact', detail: { note: 'erasure request 17' } }),
    ]),
  );
});

it('the CLI: submit with them, see them in status and list, search, redact, and a tenant made unique', async () => {
  const submitted = await relayerCli(
    [
      ...['submit', '--chain-id', String(world.anvil.chainId), '--to', paymentBody(world).to],
      ...['--wei', '1000', '--reference', 'po_cli_1'],
      ...['--metadata', 'invoice=INV-9', '--metadata', 'note=a=b', '--json'],
    ],
    { RELAYER_API_KEY: cliKeys.payouts },
  );
  expect(submitted.code).toBe(0);
  const intent = JSON.parse(submitted.stdout) as { id: string; metadata: object };
  expect(intent.metadata).toEqual({ invoice: 'INV-9', note: 'a=b' });
  const status = await relayerCli(['status', intent.id], { RELAYER_API_KEY: cliKeys.payouts });
  expect(status.stdout).toMatch(/reference\s+│ po_cli_1/);
  expect(status.stdout).toMatch(/metadata\.invoice\s+│ INV-9/);
  const listed = await relayerCli(['list', '--metadata', 'invoice=INV-9'], {
    RELAYER_API_KEY: cliKeys.payouts,
  });
  expect([listed.code, listed.stdout]).toEqual([0, expect.stringContaining('po_cli_1')]);
  expect(listed.stdout).toContain('1 intents');

  const refused = await relayerCli(['list', '--metadata', 'invoice'], {
    RELAYER_API_KEY: cliKeys.payouts,
  });
  expect([refused.code, refused.stderr]).toEqual([2, expect.stringContaining('key=value')]);

  await tenant.payouts.cancel(intent.id);
  const redacted = await relayerCli(['redact', intent.id, '--json'], {
    RELAYER_API_KEY: cliKeys.redactor,
  });
  expect(redacted.code).toBe(0);
  expect(JSON.parse(redacted.stdout)).toMatchObject({ reference: null, metadata: {} });

  const unique = await relayerCli(['tenants', 'update', 'payouts', '--unique-references', 'on']);
  expect([unique.code, unique.stdout]).toEqual([
    0,
    expect.stringContaining('unique references on'),
  ]);
  try {
    await submit('payouts', { reference: 'po_cli_2' });
    const taken = await relayerCli(
      [
        ...['submit', '--chain-id', String(world.anvil.chainId), '--to', paymentBody(world).to],
        ...['--wei', '1000', '--reference', 'po_cli_2'],
      ],
      { RELAYER_API_KEY: cliKeys.payouts },
    );
    // What happened, then what to do about it on a line of its own.
    expect([taken.code, taken.stderr]).toEqual([
      5,
      expect.stringMatching(
        /reference_taken: reference "po_cli_2" is taken by pi_\w+\n {2}read that intent/,
      ),
    ]);
  } finally {
    await relayerCli(['tenants', 'update', 'payouts', '--unique-references', 'off']);
  }
  const wrong = await relayerCli(['tenants', 'update', 'payouts', '--unique-references', 'yes']);
  expect([wrong.code, wrong.stderr]).toEqual([2, expect.stringContaining('on or off')]);
});
