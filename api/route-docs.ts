/** Which keys call a route: one kind, both, or a tenant's own data besides an operator's. */
export type RouteKeys =
  'anyone' | 'tenant' | 'operator' | 'tenant, operator' | 'tenant (its own), operator';

/**
 * What each route does, in docs/api.md's words: its OpenAPI description (set as each route is
 * registered; a route without one fails then), from which docs/api.md's endpoint table is made
 * (npm run docs:config). Keyed by method and Fastify path.
 */
export const routeDocs: Readonly<Record<string, { keys: RouteKeys; what: string }>> = {
  'GET /healthz': {
    keys: 'anyone',
    what: 'alive: the process answers',
  },
  'GET /readyz': {
    keys: 'anyone',
    what: 'ready: Temporal, the database and every chain answer, and the process is not shutting down',
  },
  'GET /metrics': {
    keys: 'anyone',
    what: "Prometheus: this process's metrics and the intents by status from the database",
  },
  'POST /v1/intents': {
    keys: 'tenant',
    what: "submit; `Idempotency-Key` header required. New → 202, same key and body → 200, another body → 422 `idempotency_key_reused`, a key past `IDEMPOTENCY_KEY_TTL_HOURS` → 422 `idempotency_key_expired`; at the tenant's in-flight limit 429 `tenant_limit_reached`, the backlog full 503 `pool_full` (Retry-After), shutting down 503 `closed`; `from` optional (see below)",
  },
  'GET /v1/intents': {
    keys: 'tenant, operator',
    what: 'newest first; `status`, `reference`, `metadata[<key>]=<value>` (each key given must hold its value), `limit` (≤ 200), `cursor` (from `nextCursor`), `tenantId` (operator; a tenant key naming another tenant is refused 403)',
  },
  'GET /v1/intents/:id': {
    keys: 'tenant, operator',
    what: "one intent (another tenant's id is a 404)",
  },
  'GET /v1/intents/:id/attempts': {
    keys: 'tenant, operator',
    what: 'every transaction signed for it: nonce, fee bid, cause (`first`, `fee_bump`, `nonce_reassigned`, `cancel`)',
  },
  'GET /v1/intents/:id/audit': {
    keys: 'tenant, operator',
    what: "cancels (`cancel`, `cancel_signed`), speed-ups (`sped_up`), reviews and the relayer's own chain moves (`replaced`, `resent`, `nonce_reassigned`, `nonce_gap_filled`, `receipt_reorged`, `reorged_before_finality`): who, what, when",
  },
  'POST /v1/intents/:id/redact': {
    keys: 'operator',
    what: 'an ended intent\'s `reference` and `metadata` erased from its row, the search index, its webhook events and (it had a reference) its workflow\'s history in Temporal; the ledger and the rest stay, the audit trail says who and when; an open intent: 409 `intent_open`; optional body `{"note"}`; needs the `redact` scope, given by name only',
  },
  'POST /v1/intents/:id/cancel': {
    keys: 'tenant, operator',
    what: 'unsigned: it ends `cancelled` (200); sent but not mined: a zero-value transfer at its nonce takes it back (202, still `confirming`); mined or ended: 409 `not_cancellable` saying why; optional body `{"note"}`',
  },
  'POST /v1/intents/:id/speed-up': {
    keys: 'tenant, operator',
    what: 'sent but not mined: its payment signed again at its nonce with a higher bid, within the fee caps (202, still `confirming`, its new transaction current); optional body `{"maxFeePerGas", "maxPriorityFeePerGas"}` (wei per gas, the least to bid; none: the least a replacement must) and `{"note"}`; at most `SPEED_UPS_MAX` per payment; otherwise 409 `cannot_speed_up` saying why',
  },
  'POST /v1/intents/:id/review/confirm': {
    keys: 'operator',
    what: '`{txHash}`: must be mined, confirmed and pay exactly this intent; captures the hold',
  },
  'POST /v1/intents/:id/review/fail': {
    keys: 'operator',
    what: '`{reason}`: refused while the signed transaction can still land; releases the hold',
  },
  'POST /v1/intents/:id/review/retry': {
    keys: 'operator',
    what: 're-send the same signed bytes and follow them to the end, in the same workflow',
  },
  'POST /v1/intents/:id/review/cancel': {
    keys: 'operator',
    what: 'take the nonce back: a zero-value transfer to the wallet itself at the nonce (chain.md)',
  },
  'POST /v1/batches': {
    keys: 'tenant',
    what: "`{items, concurrency, mode}` + `Idempotency-Key`; a bad item is a 400 naming its index, nothing written; items run as intents, at most `concurrency` at once and within the tenant's in-flight limit, one wallet's items in their order",
  },
  'GET /v1/batches/:id': {
    keys: 'tenant, operator',
    what: 'status and items counted by status',
  },
  'GET /v1/batches/:id/results': {
    keys: 'tenant, operator',
    what: 'per-item results in input order (`fromIndex`, `limit` ≤ 1000, `nextIndex`)',
  },
  'POST /v1/batches/:id/cancel': {
    keys: 'tenant, operator',
    what: 'nothing more starts; unsigned items cancelled, signed ones followed to their end',
  },
  'GET /v1/wallets': {
    keys: 'operator',
    what: 'each hot wallet: balance, nonces in flight, the intent in review blocking it, low, retired',
  },
  'POST /v1/wallets': {
    keys: 'operator',
    what: '`{address, signer}`: a hot wallet added at run time by the signer holding its key (`kms:<key id, ARN or alias>` or `remote:<http(s) URL>`, no credentials in it; never a private key); every worker takes it on once the signer says it holds the wallet; 201 `{address, signer}` (a remote signer by its host)',
  },
  'POST /v1/wallets/:chainId/:address/retire': {
    keys: 'operator',
    what: 'it signs nothing new and finishes what it has (`…/activate` undoes it); 204',
  },
  'POST /v1/wallets/:chainId/:address/activate': {
    keys: 'operator',
    what: 'a retired wallet signs again',
  },
  'PUT /v1/tenants/:tenantId/wallets': {
    keys: 'operator',
    what: '`{chainId, wallets}`: the wallets its intents may use there (`null`: all); 204',
  },
  'GET /v1/assets': {
    keys: 'tenant, operator',
    what: 'the tokens registered per chain (`chainId` filter): alias, symbol, decimals, address, fee on transfer',
  },
  'POST /v1/assets': {
    keys: 'operator',
    what: '`{chainId, address, alias?, feeOnTransfer?}`: register an ERC-20 — symbol and decimals read from it, a fee on transfer probed; 201 with `probe`',
  },
  'GET /v1/balances': {
    keys: 'tenant',
    what: "its books per asset and chain (`chainId`): `available` to pay out and `held` for open intents, in base units with the asset's `decimals`",
  },
  'POST /v1/deposit-addresses': {
    keys: 'tenant',
    what: '`{chainId, index?, reference?, metadata?}`: its deposit address on the chain, the same on every call; `reference` and `metadata` set ride on each deposit found at it (503 `deposits_off` where the chain has no deposit factory)',
  },
  'GET /v1/deposit-addresses': {
    keys: 'tenant',
    what: 'its deposit addresses, per chain',
  },
  'GET /v1/deposits': {
    keys: 'tenant',
    what: 'what reached its deposit addresses, newest first: `detected`, `credited` once final, `dropped` by a reorg, `dust`, `unregistered` token; `status`, `limit` (≤ 200)',
  },
  'POST /v1/deposits/reconcile': {
    keys: 'operator',
    what: "`{chainId}`: reconcile the chain's deposits now: per address and asset, held + swept beside credited + uncredited + pending, and per book what deposits credited beside what `@system/deposits` gave out; `differences` 0 when all agree (kept for /readyz and the metric)",
  },
  'POST /v1/webhooks/endpoints': {
    keys: 'tenant, operator',
    what: '`{url, eventTypes}`: an endpoint (201, with its secret, shown this once)',
  },
  'GET /v1/webhooks/endpoints': {
    keys: 'tenant, operator',
    what: 'the endpoints (a tenant sees its own)',
  },
  'POST /v1/webhooks/endpoints/:id/rotate-secret': {
    keys: 'tenant, operator',
    what: 'a new secret, shown once; the old one keeps signing for the grace',
  },
  'POST /v1/webhooks/endpoints/:id/enable': {
    keys: 'tenant, operator',
    what: 'resume deliveries: those waiting go out in order',
  },
  'POST /v1/webhooks/endpoints/:id/disable': {
    keys: 'tenant, operator',
    what: 'stop deliveries (those waiting resume, in order, once enabled)',
  },
  'GET /v1/webhooks/endpoints/:id/deliveries': {
    keys: 'tenant, operator',
    what: 'the delivery log, newest first (`status=dead`: the dead letters)',
  },
  'POST /v1/webhooks/endpoints/:id/deliveries/:eventId/redeliver': {
    keys: 'tenant, operator',
    what: 'send an event again, with the same webhook-id (204)',
  },
  'GET /v1/tenants/:tenantId/policy': {
    keys: 'tenant (its own), operator',
    what: "the payment policy in force: its version, spend limits per asset and chain, allow-list chains (another tenant's: 403)",
  },
  'GET /v1/tenants/:tenantId/policy/changes': {
    keys: 'tenant (its own), operator',
    what: 'every change, latest first: who, what, before → after (`limit`)',
  },
  'PUT /v1/tenants/:tenantId/policy/limits': {
    keys: 'operator',
    what: '`{chainId, asset?, maxPerIntent?, perDay?, perWeek?, approvalThreshold?}` in base units; null removes a bound, absent keeps it',
  },
  'PUT /v1/tenants/:tenantId/policy/recipients': {
    keys: 'operator',
    what: '`{chainId, recipients}`: `allow_list` (only listed recipients) or `any` on a chain',
  },
  'GET /v1/tenants/:tenantId/recipients': {
    keys: 'tenant (its own), operator',
    what: 'the allow- and deny-listed recipients, per chain',
  },
  'POST /v1/tenants/:tenantId/recipients': {
    keys: 'operator',
    what: '`{chainId, address, list, label}`: put a recipient on the allow- or deny-list',
  },
  'DELETE /v1/tenants/:tenantId/recipients/:chainId/:address': {
    keys: 'operator',
    what: 'take a recipient off the lists (204)',
  },
  'GET /v1/tenants/:tenantId/contract-calls': {
    keys: 'tenant (its own), operator',
    what: "the contract functions the tenant's intents may call",
  },
  'POST /v1/tenants/:tenantId/contract-calls': {
    keys: 'operator',
    what: '`{chainId, contract, function, maxValue?, label, allowNoCode?}`: allow a function (`maxValue` in wei; absent keeps the bound it had); answers `targetHasCode`',
  },
  'DELETE /v1/tenants/:tenantId/contract-calls/:chainId/:contract/:function': {
    keys: 'operator',
    what: 'no longer allow it (204)',
  },
  'POST /v1/intents/:id/approve': {
    keys: 'tenant, operator',
    what: '`{note?}`: an intent awaiting approval is paid; never by the key that submitted it (403 `approval_refused`)',
  },
  'POST /v1/intents/:id/reject': {
    keys: 'tenant, operator',
    what: '`{note?}`: an intent awaiting approval ends rejected, nothing held or sent',
  },
  'POST /v1/batches/:id/approve': {
    keys: 'tenant, operator',
    what: '`{note?}`: a batch awaiting approval starts, once for all its items; never by the key that submitted it',
  },
  'POST /v1/batches/:id/reject': {
    keys: 'tenant, operator',
    what: '`{note?}`: a batch awaiting approval ends rejected, every item skipped',
  },
  'POST /v1/pauses': {
    keys: 'operator',
    what: '`{scope: relayer|tenant|chain, tenantId?, chainId?, note, refuseAdmission?}`: nothing new in it takes a permit (201; already paused: 200 with that pause)',
  },
  'POST /v1/pauses/:id/resume': {
    keys: 'operator',
    what: '`{note?}`: the pause ends; the intents it held ask for their permits, oldest first',
  },
  'GET /v1/pauses': {
    keys: 'operator',
    what: 'the pauses in force; `all=true`: the resumed ones too, newest first',
  },
  'POST /v1/schedules': {
    keys: 'tenant',
    what: 'a payment made `every` span or by `cron` in a `timezone`; `Idempotency-Key` header required. New → 201, same key and body → 200',
  },
  'GET /v1/schedules': {
    keys: 'tenant (its own), operator',
    what: 'the payment schedules not deleted, newest first',
  },
  'GET /v1/schedules/:id': {
    keys: 'tenant (its own), operator',
    what: 'one schedule with its next times and its latest occurrences (the intent each became, or why not)',
  },
  'POST /v1/schedules/:id/pause': {
    keys: 'tenant (its own), operator',
    what: 'no occurrence runs until resumed; optional `note`',
  },
  'POST /v1/schedules/:id/resume': {
    keys: 'tenant (its own), operator',
    what: 'occurrences run again from the next one (those missed meanwhile: backfill)',
  },
  'POST /v1/schedules/:id/backfill': {
    keys: 'tenant (its own), operator',
    what: 'runs the occurrences between `from` and `to` (at most 31 days, all past, none before the schedule starts unless `beforeStart`), each paid once however often asked → 200 with what each became and the counts (202 while some still run)',
  },
  'DELETE /v1/schedules/:id': {
    keys: 'tenant (its own), operator',
    what: 'no occurrence runs again; intents already admitted go on → 204',
  },
};
