import { formatEther, formatGwei, formatUnits } from 'viem/utils';
import type { BalancesView, TokenView } from '../api/schemas/assets';
import type { IntentView } from '../api/schemas/intents';
import type { WalletView } from '../api/schemas/wallets';
import type { WebhookDeliveryView, WebhookEndpointView } from '../api/schemas/webhooks';
import type { AttemptView } from './api-client';
import { table } from './table';

export interface OutputOptions {
  json?: boolean;
}

/** A result: JSON for scripts, a table or a line for people. */
export function print(options: OutputOptions, value: unknown, forPeople: () => string): void {
  console.log(options.json ? JSON.stringify(value, null, 2) : forPeople());
}

export function intentTable(intents: IntentView[]): string {
  const rows = table(
    ['id', 'tenant', 'reference', 'status', 'amount', 'to', 'tx', 'created'],
    ['left', 'left', 'left', 'left', 'right', 'left', 'left', 'left'],
  );
  for (const intent of intents) {
    rows.push([
      intent.id,
      intent.tenantId,
      intent.reference ?? '',
      intent.status,
      amountOf(intent),
      shorten(intent.to),
      intent.txHash ? shorten(intent.txHash) : '',
      intent.createdAt.replace('T', ' ').slice(0, 19),
    ]);
  }
  return rows.toString();
}

export function attemptTable(attempts: AttemptView[]): string {
  if (attempts.length === 0) return 'nothing signed yet';
  const rows = table(
    ['#', 'nonce', 'cause', 'max fee gwei', 'tip gwei', 'tx', 'signed at'],
    ['right', 'right', 'left', 'right', 'right', 'left', 'left'],
  );
  for (const attempt of attempts) {
    rows.push([
      attempt.attempt,
      attempt.nonce,
      attempt.cause,
      formatGwei(BigInt(attempt.maxFeePerGas)),
      formatGwei(BigInt(attempt.maxPriorityFeePerGas)),
      attempt.txHash,
      attempt.createdAt.replace('T', ' ').slice(0, 19),
    ]);
  }
  return rows.toString();
}

export function walletTable(wallets: WalletView[]): string {
  const rows = table(
    [
      'chain',
      'wallet',
      'role',
      'balance ETH',
      'tokens',
      'nonces in flight',
      'blocked by',
      'low',
      'retired',
      'top-up',
    ],
    ['right', 'left', 'left', 'right', 'right', 'right', 'left', 'left', 'left', 'left'],
  );
  for (const wallet of wallets) {
    rows.push([
      wallet.chainId,
      wallet.address,
      wallet.role,
      formatEther(BigInt(wallet.balance)),
      wallet.tokens.map((token) => `${token.decimalBalance} ${token.asset}`).join(', '),
      wallet.pendingNonces,
      wallet.blockedBy ?? '',
      wallet.low ? 'LOW' : '',
      wallet.retired ? 'retired' : '',
      wallet.topUps
        .map(
          (topUp) =>
            `${topUp.id} ${topUp.status} +${topUp.asset === 'native' ? `${formatEther(BigInt(topUp.amount))} ETH` : `${topUp.amount} of ${topUp.asset}`}`,
        )
        .join('\n'),
    ]);
  }
  return rows.toString();
}

export function intentDetails(intent: IntentView): string {
  const rows = table(['field', 'value'], ['left', 'left']);
  rows.push(
    ['id', intent.id],
    ['tenant', intent.tenantId],
    ['status', intent.status],
    ['amount', amountOf(intent)],
    ...(intent.deliveredAmount ? [['delivered', `${intent.deliveredAmount} base units`]] : []),
    ...(intent.feePaid ? [['gas paid', `${formatEther(BigInt(intent.feePaid))} ETH`]] : []),
    ['chain', String(intent.chainId)],
    ['from', intent.from],
    ['to', intent.to],
    ...(intent.call
      ? [['call', `selector ${intent.call.selector}, ${intent.call.data.length / 2 - 1} bytes`]]
      : []),
    ['nonce', intent.nonce === null ? '' : String(intent.nonce)],
    ['tx hash', intent.txHash ?? ''],
    ['block', intent.blockNumber ?? ''],
    ['reason', intent.reason ?? ''],
    ...(intent.reasonCode ? [['reason code', intent.reasonCode]] : []),
    ['idempotency key', intent.idempotencyKey ?? ''],
    ...(intent.reference ? [['reference', intent.reference]] : []),
    ...Object.entries(intent.metadata ?? {}).map(([key, value]) => [`metadata.${key}`, value]),
    ...(intent.notBefore ? [['not before', intent.notBefore]] : []),
    ...(intent.validUntil ? [['valid until', intent.validUntil]] : []),
    ['created', intent.createdAt],
    ['updated', intent.updatedAt],
  );
  return rows.toString();
}

const shorten = (hex: string) => `${hex.slice(0, 8)}…${hex.slice(-6)}`;

/** Ether for the native coin; base units and the token's address otherwise. */
function amountOf(intent: IntentView): string {
  return intent.asset === 'native'
    ? `${formatEther(BigInt(intent.amount))} ETH`
    : `${intent.amount} of ${intent.asset}`;
}

/** A tenant's books in each asset's own units. */
export function balanceTable({ tenantId, balances }: BalancesView): string {
  const rows = table(['asset', 'chain', 'available', 'held'], ['left', 'right', 'right', 'right']);
  for (const balance of balances) {
    const shown = (units: string) => formatUnits(BigInt(units), balance.decimals);
    rows.push([balance.asset, balance.chainId, shown(balance.available), shown(balance.held)]);
  }
  return `tenant ${tenantId}\n${rows.toString()}`;
}

export function tokenTable(tokens: TokenView[]): string {
  const rows = table(
    ['chain', 'alias', 'symbol', 'decimals', 'address', 'fee on transfer'],
    ['right', 'left', 'left', 'right', 'left', 'left'],
  );
  for (const token of tokens) {
    rows.push([
      token.chainId,
      token.alias,
      token.symbol,
      token.decimals,
      token.address,
      token.feeOnTransfer ? 'yes' : '',
    ]);
  }
  return rows.toString();
}

export function endpointTable(endpoints: WebhookEndpointView[]): string {
  const rows = table(['id', 'url', 'events', 'status'], ['left', 'left', 'left', 'left']);
  for (const endpoint of endpoints) {
    rows.push([
      endpoint.id,
      endpoint.url,
      endpoint.eventTypes.join(', '),
      endpoint.status + (endpoint.disabledReason ? ` (${endpoint.disabledReason})` : ''),
    ]);
  }
  return rows.toString();
}

export function deliveryTable(deliveries: WebhookDeliveryView[]): string {
  const rows = table(
    [
      'event (webhook-id)',
      'intent',
      'seq',
      'type',
      'status',
      'attempts',
      'last answer',
      'next try',
    ],
    ['left', 'left', 'right', 'left', 'left', 'right', 'left', 'left'],
  );
  for (const delivery of deliveries) {
    rows.push([
      delivery.eventId,
      delivery.intentId,
      delivery.sequence,
      delivery.type,
      delivery.status,
      delivery.attempts,
      delivery.lastStatusCode?.toString() ?? delivery.lastError ?? '',
      delivery.nextAttemptAt ?? '',
    ]);
  }
  return rows.toString();
}
