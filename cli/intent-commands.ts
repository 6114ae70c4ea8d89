import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { parseEther } from 'viem';
import type { IntentView } from '../api/schemas';
import { RelayerApiClient } from './api-client';
import { decimalAmountProblem } from './decimal-amount';
import { badInput, CliFailure, ExitCode } from './exit-codes';
import {
  attemptTable,
  balanceTable,
  intentDetails,
  intentTable,
  deliveryTable,
  endpointTable,
  print,
  tokenTable,
  walletTable,
  type OutputOptions,
} from './output';
import { watchIntent } from './watch-intent';

export interface ApiOptions extends OutputOptions {
  apiUrl: string;
  apiKey?: string;
}

export const apiOf = (options: ApiOptions) => {
  if (!options.apiKey) throw badInput('no API key: pass --api-key or set RELAYER_API_KEY');
  return new RelayerApiClient(options.apiUrl, options.apiKey);
};

const whole = (flag: string, max: number) => (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw badInput(`${flag}: must be a whole number from 1 to ${max} (got "${value}")`);
  }
  return Number(value);
};

/** The commands that talk to the HTTP API with a tenant's or an operator's key. */
export function addIntentCommands(program: Command, api: () => ApiOptions): void {
  program
    .command('submit')
    .description('submit a payment intent (tenant key)')
    .requiredOption('--chain-id <id>', 'EVM chain id', whole('--chain-id', 2 ** 31))
    .option('--from <address>', 'hot wallet to send from (default: the relayer chooses one)')
    .requiredOption('--to <address>', 'recipient')
    .option('--asset <alias>', 'what to pay in: native (default) or a registered token, e.g. USDC')
    .option(
      '--amount <decimal>',
      "amount in the asset's units, e.g. 12.5 (of USDC: 12500000 base units)",
    )
    .option('--eth <amount>', 'amount in ether, e.g. 0.25 (native)')
    .option('--wei <amount>', 'amount in base units (wei, or the token’s smallest unit)')
    .option('--idempotency-key <key>', 'your name for this payment (default: a new UUID)')
    .option('--wait', 'wait until the intent ends, with a progress bar')
    .action(async (flags: SubmitFlags) => {
      const options = api();
      const amount = amountOf(flags);
      const key = flags.idempotencyKey ?? randomUUID();
      const client = apiOf(options);
      const { status, body } = await client.submit(
        {
          chainId: flags.chainId,
          ...(flags.from !== undefined && { from: flags.from }),
          to: flags.to,
          ...(flags.asset !== undefined && { asset: flags.asset }),
          ...amount,
        },
        key,
      );
      const intent = flags.wait
        ? await watchIntent(client, body.id, { timeoutMs: 30 * 60_000, quiet: !!options.json })
        : body;
      print(options, intent, () =>
        [
          status === 200 ? `already submitted under key ${key}:` : `submitted (key ${key}):`,
          intentDetails(intent),
        ].join('\n'),
      );
      if (flags.wait) exitUnlessConfirmed(intent.status);
    });

  program
    .command('status <intentId>')
    .description('show one intent')
    .option('--wait', 'wait until it ends, with a progress bar')
    .action(async (intentId: string, flags: { wait?: boolean }) => {
      const options = api();
      const client = apiOf(options);
      const intent = flags.wait
        ? await watchIntent(client, intentId, { timeoutMs: 30 * 60_000, quiet: !!options.json })
        : await client.get(intentId);
      print(options, intent, () => intentDetails(intent));
      if (flags.wait) exitUnlessConfirmed(intent.status);
    });

  program
    .command('attempts <intentId>')
    .description('every transaction signed for an intent (replacements, re-signs)')
    .action(async (intentId: string) => {
      const options = api();
      const attempts = await apiOf(options).attempts(intentId);
      print(options, attempts, () => attemptTable(attempts));
    });

  /** An intent's audit trail: a tenant's own intents, or any for an operator. */
  async function showAudit(intentId: string): Promise<void> {
    const options = api();
    const entries = await apiOf(options).audit(intentId);
    print(
      options,
      entries,
      () =>
        entries
          .map((e) => `${e.at}  ${e.action}  ${e.actor}  ${JSON.stringify(e.detail)}`)
          .join('\n') || 'no entries (no cancel, review or replacement)',
    );
  }

  program
    .command('audit <intentId>')
    .description(
      'who cancelled or reviewed an intent and what the relayer replaced or re-sent, when',
    )
    .action(showAudit);

  program
    .command('list')
    .description('list intents, newest first, a page at a time (--cursor for the next, or --all)')
    .option('--status <status>', 'only this status (e.g. needs_review)')
    .option('--tenant <id>', 'operator keys: only this tenant')
    .option('--limit <n>', 'at most this many', whole('--limit', 10_000), 50)
    .option('--cursor <cursor>', 'start after the page that answered this nextCursor')
    .option('--all', 'every intent that matches, whatever --limit says')
    .action(
      async (flags: {
        status?: string;
        tenant?: string;
        limit: number;
        cursor?: string;
        all?: boolean;
      }) => {
        const options = api();
        const client = apiOf(options);
        const intents: IntentView[] = [];
        let cursor = flags.cursor;
        do {
          const page = await client.list({
            status: flags.status,
            tenantId: flags.tenant,
            limit: flags.all ? 200 : Math.min(200, flags.limit - intents.length),
            cursor,
          });
          intents.push(...page.intents);
          cursor = page.nextCursor ?? undefined;
        } while (cursor && (flags.all || intents.length < flags.limit));
        const nextCursor = cursor ?? null;
        print(
          options,
          { intents, nextCursor },
          () =>
            `${intentTable(intents)}\n${intents.length} intents` +
            (nextCursor ? `; more with --cursor ${nextCursor}` : ''),
        );
      },
    );

  program
    .command('balance')
    .description("your tenant's balances: available to pay out, held for open intents")
    .action(async () => {
      const options = api();
      const balances = await apiOf(options).balances();
      print(options, balances, () => balanceTable(balances));
    });

  program
    .command('cancel <intentId>')
    .description('cancel an intent before anything was signed')
    .action(async (intentId: string) => {
      const options = api();
      const intent = await apiOf(options).cancel(intentId);
      print(options, intent, () => intentDetails(intent));
    });

  const wallets = program.command('wallets').description('operator: the hot wallets');
  wallets
    .command('list')
    .description('balance, nonces in flight, blocked by an intent in review, low, retired')
    .action(async () => {
      const options = api();
      const list = await apiOf(options).wallets();
      print(options, list, () => walletTable(list));
    });
  wallets
    .command('add <address>')
    .description('add a hot wallet by the signer holding its key: every worker takes it on')
    .requiredOption('--signer <signer>', 'kms:<key id, ARN or alias> or remote:<http(s) URL>')
    .action(async (address: string, flags: { signer: string }) => {
      const options = api();
      const added = await apiOf(options).addWallet(address, flags.signer);
      print(options, added, () => `${added.address} added (${added.signer})`);
    });
  for (const [action, retired, what] of [
    ['retire', true, 'it signs nothing new and finishes what it has'],
    ['activate', false, 'a retired wallet signs again'],
  ] as const) {
    wallets
      .command(`${action} <address>`)
      .description(what)
      .requiredOption('--chain-id <id>', 'EVM chain id', whole('--chain-id', 2 ** 31))
      .action(async (address: string, flags: { chainId: number }) => {
        const options = api();
        await apiOf(options).retireWallet(flags.chainId, address, retired);
        print(options, { chainId: flags.chainId, address, retired }, () =>
          retired ? `${address} retired` : `${address} signs again`,
        );
      });
  }
  wallets
    .command('pool <tenant>')
    .description("the hot wallets a tenant's intents may be sent from on a chain")
    .requiredOption('--chain-id <id>', 'EVM chain id', whole('--chain-id', 2 ** 31))
    .option('--wallets <addresses>', 'comma-separated addresses')
    .option('--all', 'every wallet of the relayer (the default)')
    .action(
      async (tenantId: string, flags: { chainId: number; wallets?: string; all?: boolean }) => {
        if ((flags.wallets === undefined) === (flags.all === undefined)) {
          throw badInput('give --wallets a,b,… or --all');
        }
        const pool = flags.wallets?.split(',').map((address) => address.trim()) ?? null;
        const options = api();
        await apiOf(options).setWalletPool(tenantId, flags.chainId, pool);
        print(options, { tenantId, chainId: flags.chainId, wallets: pool }, () =>
          pool === null
            ? `${tenantId} sends from every wallet on chain ${flags.chainId}`
            : `${tenantId} sends from ${pool.join(', ')} on chain ${flags.chainId}`,
        );
      },
    );

  const assets = program
    .command('assets')
    .description('the tokens intents may pay in, per chain (besides native)');
  assets
    .command('list')
    .description('registered tokens: alias, symbol, decimals, fee on transfer')
    .option('--chain-id <id>', 'one chain only', whole('--chain-id', 2 ** 31))
    .action(async (flags: { chainId?: number }) => {
      const options = api();
      const list = await apiOf(options).tokens(flags.chainId);
      print(options, list, () => tokenTable(list));
    });
  assets
    .command('register <address>')
    .description(
      'operator: register an ERC-20 (symbol and decimals read from it, a fee on transfer probed)',
    )
    .requiredOption('--chain-id <id>', 'EVM chain id', whole('--chain-id', 2 ** 31))
    .option(
      '--alias <alias>',
      "how intents name it, unique per chain (default: the token's symbol)",
    )
    .option('--fee-on-transfer', 'it takes a fee on transfer (over what the probe finds)')
    .action(
      async (
        address: string,
        flags: { chainId: number; alias?: string; feeOnTransfer?: boolean },
      ) => {
        const options = api();
        const token = await apiOf(options).registerToken({
          chainId: flags.chainId,
          address,
          ...(flags.alias !== undefined && { alias: flags.alias }),
          ...(flags.feeOnTransfer && { feeOnTransfer: true }),
        });
        print(
          options,
          token,
          () =>
            `${token.alias} (${token.symbol}, ${token.decimals} decimals) registered on chain ${token.chainId}: ` +
            `${token.feeOnTransfer ? 'takes a fee on transfer' : 'delivers in full'} (probe: ${token.probe})`,
        );
      },
    );

  const webhooks = program
    .command('webhooks')
    .description(
      "a tenant's webhook endpoints (Standard Webhooks): where it is told of state changes",
    );
  webhooks
    .command('add')
    .description('register an endpoint (tenant key); prints its secret, once')
    .requiredOption('--url <url>', 'https (http to loopback only where the relayer allows it)')
    .option('--events <types>', 'comma-separated intent.<status> types (default: every one)')
    .action(async (flags: { url: string; events?: string }) => {
      const options = api();
      const endpoint = await apiOf(options).addWebhookEndpoint({
        url: flags.url,
        ...(flags.events && { eventTypes: flags.events.split(',').map((type) => type.trim()) }),
      });
      print(
        options,
        endpoint,
        () =>
          `${endpoint.id} → ${endpoint.url} (${endpoint.eventTypes.join(', ')})\n` +
          `secret: ${endpoint.secret}\n(shown this once: keep it where your receiver verifies)`,
      );
    });
  webhooks
    .command('list')
    .description('the endpoints, their events and status')
    .action(async () => {
      const options = api();
      const list = await apiOf(options).webhookEndpoints();
      print(options, list, () => endpointTable(list));
    });
  for (const [action, what] of [
    [
      'rotate-secret',
      'a new secret, printed once; the old one signs beside it for the grace period',
    ],
    ['enable', 'enable an endpoint again (after a 410): its waiting deliveries resume'],
    ['disable', 'disable an endpoint: its deliveries wait'],
  ] as const) {
    webhooks
      .command(`${action} <endpointId>`)
      .description(what)
      .action(async (endpointId: string) => {
        const options = api();
        const answer = await apiOf(options).webhookEndpointAction(endpointId, action);
        print(options, answer, () =>
          Object.entries(answer)
            .map(([key, value]) => `${key}: ${String(value)}`)
            .join('\n'),
        );
      });
  }
  webhooks
    .command('deliveries <endpointId>')
    .description("an endpoint's delivery log, newest first")
    .option('--dead', 'only the dead letters (retries ran out)')
    .action(async (endpointId: string, flags: { dead?: boolean }) => {
      const options = api();
      const list = await apiOf(options).webhookDeliveries(
        endpointId,
        flags.dead ? 'dead' : undefined,
      );
      print(options, list, () => deliveryTable(list));
    });
  webhooks
    .command('redeliver <endpointId> <eventId>')
    .description('send an event to the endpoint again (the same webhook-id)')
    .action(async (endpointId: string, eventId: string) => {
      const options = api();
      await apiOf(options).redeliverWebhook(endpointId, eventId);
      print(options, { endpointId, eventId }, () => `${eventId} goes to ${endpointId} again`);
    });

  const review = program
    .command('review')
    .description('operator: resolve intents in needs_review (checked on-chain, audited)');
  review
    .command('list')
    .description('intents waiting for a person')
    .action(async () => {
      const options = api();
      const { intents } = await apiOf(options).list({ status: 'needs_review', limit: 200 });
      print(options, intents, () => `${intentTable(intents)}\n${intents.length} in review`);
    });
  review
    .command('confirm <intentId>')
    .description('the given transaction paid it')
    .requiredOption('--tx-hash <hash>', 'the transaction that paid it')
    .option('--note <text>', 'for the audit log')
    .action(async (intentId: string, flags: { txHash: string; note?: string }) => {
      const options = api();
      const intent = await apiOf(options).review(intentId, 'confirm', flags);
      print(options, intent, () => intentDetails(intent));
    });
  review
    .command('fail <intentId>')
    .description('it did not pay and cannot: release the hold')
    .requiredOption('--reason <text>', 'why (kept in the intent and the audit log)')
    .action(async (intentId: string, flags: { reason: string }) => {
      const options = api();
      const intent = await apiOf(options).review(intentId, 'fail', flags);
      print(options, intent, () => intentDetails(intent));
    });
  review
    .command('retry <intentId>')
    .description('send the same signed transaction again and follow it')
    .option('--note <text>', 'for the audit log')
    .action(async (intentId: string, flags: { note?: string }) => {
      const options = api();
      const intent = await apiOf(options).review(intentId, 'retry', flags);
      print(options, intent, () => intentDetails(intent));
    });
  review
    .command('cancel <intentId>')
    .description(
      'take the nonce back: a zero-value transfer to the wallet itself at the same nonce; the intent fails once it is mined',
    )
    .option('--note <text>', 'for the audit log')
    .action(async (intentId: string, flags: { note?: string }) => {
      const options = api();
      const intent = await apiOf(options).review(intentId, 'cancel', flags);
      print(options, intent, () => intentDetails(intent));
    });
  review
    .command('audit <intentId>')
    .description('who did what to an intent (also: relayer audit)')
    .action(showAudit);
}

interface SubmitFlags {
  chainId: number;
  from?: string;
  to: string;
  asset?: string;
  amount?: string;
  eth?: string;
  wei?: string;
  idempotencyKey?: string;
  wait?: boolean;
}

/** The amount as the API takes it: base units, or a decimal the API converts by the asset's decimals. */
function amountOf(flags: SubmitFlags): { amount: string } | { decimalAmount: string } {
  const given = [flags.amount, flags.eth, flags.wei].filter((flag) => flag !== undefined);
  if (given.length !== 1) {
    throw badInput('give the amount once: --amount <decimal>, --eth <ether> or --wei <base units>');
  }
  if (flags.eth !== undefined && flags.asset !== undefined && flags.asset !== 'native') {
    throw badInput(`--eth is for the native coin: give --amount for ${flags.asset}`);
  }
  if (flags.wei !== undefined) return { amount: flags.wei };
  const decimal = flags.amount ?? flags.eth!;
  const flag = flags.amount !== undefined ? '--amount' : '--eth';
  // A token's own decimals are the API's to check: it knows the asset.
  const problem = decimalAmountProblem(decimal, flag === '--eth' ? 18 : Infinity);
  if (problem) throw badInput(`${flag}: ${problem}`);
  if (flag === '--eth') return { amount: parseEther(decimal).toString() };
  return { decimalAmount: decimal };
}

function exitUnlessConfirmed(status: string): void {
  if (status !== 'confirmed') {
    throw new CliFailure(status, `the intent ended ${status}`, ExitCode.notConfirmed);
  }
}
