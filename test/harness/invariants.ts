import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { IntentStatus, terminalStatuses } from '../../domain/intent';
import { minedTransactions } from './stack/chain-truth';
import type { LocalWorld } from './stack/local-world';
import type { RpcProxy } from './stack/rpc-proxy';
import { accountKey, ledgerSnapshot } from './ledger-checks';
import { paymentCall, type AssetRef } from '../../domain/asset';
import { deliveredBy, tokenTransfersOf } from '../../chain/erc20';
import type { Hex } from '../../domain/transfer';

export interface InvariantScope {
  world: LocalWorld;
  /**
   * Everything ever deposited: tenant → wei of the world's native coin, and `tenant/<book>`
   * (`native:<chainId>`, or for a token `erc20:<chainId>:<address>`) → its base units.
   */
  deposits: Record<string, bigint>;
  /** Intents the relayer accepted (ids): each must be there and have ended. */
  accepted?: string[];
  /** The hot wallets the workers signed for, when not the world's own keys (external signers). */
  wallets?: readonly string[];
  /**
   * The proxy (or the endpoints) the workers sent through: every raw transaction seen must be
   * recorded. One scan of the chain serves them all.
   */
  proxy?: RpcProxy | readonly RpcProxy[];
}

const proxiesOf = (scope: InvariantScope): readonly RpcProxy[] =>
  scope.proxy === undefined ? [] : [scope.proxy].flat();

/**
 * The ledger invariants of a run, checked once its faults have stopped and its intents have
 * ended; each broken one is a line naming the intent or account (none: all hold).
 *
 * I1 an intent has one transaction, or same-nonce replacements (and re-signs at a new nonce only
 *    where it recorded why), every one of them recorded before it was sent; at most one is mined;
 *    its recipient is paid exactly once if it is confirmed, never otherwise (intents alike — one
 *    recipient, asset and amount, as a wallet's top-ups may be — counted together); a contract
 *    call's exact call (contract, value, data) is mined successfully once if it is confirmed,
 *    never otherwise.
 * I2 every accepted intent has ended; one in needs_review says why.
 * I3 the ledger balances, per book (an asset on a chain): postings sum to zero, each account is the sum of its
 *    postings, no tenant account is negative, and a tenant's available + held + paid out (+ the
 *    gas it was charged, in native) is what it deposited.
 * I4 no hold is active once its intent has ended (needs_review keeps it: the money may yet go).
 */
export async function invariantViolations(scope: InvariantScope): Promise<string[]> {
  const { world } = scope;
  const db = world.database.kysely;
  const violations: string[] = [];
  const intents = await db.selectFrom('intents').selectAll().execute();
  const attempts = await db
    .selectFrom('transaction_attempts')
    .selectAll()
    .orderBy('intent_id')
    .orderBy('attempt')
    .execute();
  const fills = await db.selectFrom('nonce_fills').select('tx_hash').execute();
  const mined = await minedTransactions(world, 0n);
  const ours = new Set((scope.wallets ?? world.wallets).map((address) => address.toLowerCase()));

  // I1
  const recorded = new Set<string>([
    ...attempts.map((a) => a.tx_hash),
    ...fills.map((f) => f.tx_hash),
  ]);
  for (const tx of mined) {
    if (ours.has(tx.from.toLowerCase()) && !recorded.has(tx.hash)) {
      violations.push(`I1 ${tx.hash} from ${tx.from} mined but never recorded`);
    }
  }
  for (const hash of proxiesOf(scope).flatMap((proxy) => [...proxy.sentTxHashes()])) {
    if (!recorded.has(hash)) violations.push(`I1 ${hash} sent but never recorded`);
  }
  const minedHashes = new Set<string>(mined.map((tx) => tx.hash));
  for (const intent of intents) {
    const own = attempts.filter((a) => a.intent_id === intent.id);
    own.forEach((attempt, i) => {
      const previous = own[i - 1];
      if (previous && previous.nonce !== attempt.nonce && attempt.cause !== 'nonce_reassigned') {
        violations.push(
          `I1 ${intent.id} attempt ${attempt.attempt} changed nonce (${attempt.cause})`,
        );
      }
    });
    if (intent.tx_hash && !own.some((a) => a.tx_hash === intent.tx_hash)) {
      violations.push(`I1 ${intent.id} carries ${intent.tx_hash}, not one of its attempts`);
    }
    const minedOwn = own.filter((a) => minedHashes.has(a.tx_hash));
    if (minedOwn.length > 1) violations.push(`I1 ${intent.id} has ${minedOwn.length} mined`);
    const confirmed = intent.status === IntentStatus.confirmed;
    if (confirmed && minedOwn[0]?.tx_hash !== intent.tx_hash) {
      violations.push(`I1 ${intent.id} confirmed but ${intent.tx_hash} is not mined`);
    }
  }
  // Recipient paid: per payment — its recipient, asset and amount. Tenants' payments go to fresh
  // addresses; top-ups of one wallet may repeat an amount, so intents alike are counted together.
  const alike = new Map<string, (typeof intents)[number][]>();
  for (const intent of intents) {
    const key = `${intent.to_address.toLowerCase()}/${intent.asset}/${intent.amount}/${intent.call_data ?? ''}`;
    alike.set(key, [...(alike.get(key) ?? []), intent]);
  }
  for (const group of alike.values()) {
    const { asset, to_address: to, amount, call_data: callData } = group[0]!;
    const call = callData
      ? { to: to as Hex, value: BigInt(amount), data: callData as Hex }
      : paymentCall(asset as AssetRef, to as Hex, BigInt(amount));
    const sent = mined.filter(
      (tx) =>
        tx.to?.toLowerCase() === call.to.toLowerCase() &&
        tx.value === call.value &&
        tx.input === (call.data ?? '0x') &&
        ours.has(tx.from.toLowerCase()),
    );
    // A token pays only what its Transfer logs moved to the recipient; a call only if it did
    // not revert.
    let payments = sent.length;
    if (callData) {
      payments = 0;
      for (const tx of sent) {
        const receipt = await world.testClient.getTransactionReceipt({ hash: tx.hash });
        if (receipt.status === 'success') payments++;
      }
    } else if (asset !== 'native') {
      payments = 0;
      for (const tx of sent) {
        const receipt = await world.testClient.getTransactionReceipt({ hash: tx.hash });
        const moved = deliveredBy(
          tokenTransfersOf(receipt.logs),
          asset as Hex,
          tx.from as Hex,
          to as Hex,
        );
        if (receipt.status === 'success' && moved > 0n) payments++;
      }
    }
    const confirmed = group.filter((i) => i.status === IntentStatus.confirmed).length;
    const inReview = group.filter((i) => i.status === IntentStatus.needsReview).length;
    if (payments < confirmed || payments > confirmed + inReview) {
      const [only] = group;
      violations.push(
        group.length === 1
          ? `I1 ${only!.id} (${only!.status}) paid ${payments} times`
          : `I1 ${group.map((i) => i.id).join(', ')} (${confirmed} confirmed, ${inReview} in review) paid ${payments} times`,
      );
    }
  }

  // I2
  const statusOf = new Map(intents.map((intent) => [intent.id, intent]));
  for (const id of scope.accepted ?? []) {
    if (!statusOf.has(id)) violations.push(`I2 ${id} accepted but not stored`);
  }
  for (const intent of intents) {
    if (!terminalStatuses.has(intent.status)) {
      violations.push(`I2 ${intent.id} still ${intent.status}`);
    } else if (intent.status === IntentStatus.needsReview && !intent.reason) {
      violations.push(`I2 ${intent.id} in needs_review without a reason`);
    }
  }

  // I3
  const ledger = await ledgerSnapshot(world.database);
  for (const [asset, total] of Object.entries(ledger.postedByAsset)) {
    if (total !== 0n) violations.push(`I3 postings of ${asset} sum to ${total}, not 0`);
    if (asset === 'native') violations.push('I3 postings in the retired book "native"');
  }
  for (const [account, balance] of Object.entries(ledger.balances)) {
    const posted = ledger.posted[account] ?? 0n;
    if (balance !== posted) violations.push(`I3 ${account} is ${balance}, its postings ${posted}`);
  }
  for (const [key, deposited] of Object.entries(scope.deposits)) {
    const [tenant, asset = world.nativeBook] = key.split(/\/(.*)/s) as [string, string?];
    const available = ledger.balances[accountKey(tenant, 'available', asset)] ?? 0n;
    const held = ledger.balances[accountKey(tenant, 'held', asset)] ?? 0n;
    if (available < 0n || held < 0n) {
      violations.push(`I3 ${key} negative: available ${available}, held ${held}`);
    }
    const paidOut = ledger.holds
      .filter(
        (h) =>
          h.status === 'captured' &&
          h.asset === asset &&
          statusOf.get(h.intentId)?.tenant_id === tenant,
      )
      .reduce((sum, h) => sum + h.amount, 0n);
    const gas = ledger.gasCharged[`${tenant}/${asset}`] ?? 0n;
    if (available + held + paidOut + gas !== deposited) {
      violations.push(
        `I3 ${key}: available ${available} + held ${held} + paid ${paidOut} + gas ${gas} ≠ deposited ${deposited}`,
      );
    }
  }

  // I4
  for (const hold of ledger.holds) {
    const status = statusOf.get(hold.intentId)?.status;
    if (hold.status === 'active' && status && terminalStatuses.has(status)) {
      if (status !== IntentStatus.needsReview) {
        violations.push(`I4 ${hold.intentId} is ${status} with its hold still active`);
      }
    }
  }
  return violations;
}

/**
 * Fails the test with every broken invariant at once, keeping the proxy's log of every call
 * (test-output/rpc-*.jsonl) to look into.
 */
export async function expectInvariants(scope: InvariantScope): Promise<void> {
  const violations = await invariantViolations(scope);
  if (violations.length > 0) {
    proxiesOf(scope).forEach((proxy, index) => {
      mkdirSync('test-output', { recursive: true });
      const file = join('test-output', `rpc-${Date.now()}-${index}.jsonl`);
      writeFileSync(file, proxy.log());
      violations.push(`(every RPC call of the run: ${file})`);
    });
  }
  expect(violations).toEqual([]);
}
