import type { Command } from 'commander';
import { apiOf, type ApiOptions } from '../api-options';
import { chainIdFlag, priorityFlag, timeFlag, wholeNumber } from '../flags';
import type { IntentPriority } from '../../domain/intent-priority';
import { randomUUID } from 'node:crypto';
import { parseEther } from 'viem/utils';
import type { IntentView } from '../../api/schemas/intents';
import type { ContractCallInput } from '../../domain/contract-call';
import { decimalAmountProblem } from '../decimal-amount';
import { badInput, CliFailure, ExitCode } from '../exit-codes';
import { attemptTable, balanceTable, intentDetails, intentTable, print } from '../output';
import { watchIntent } from '../watch-intent';

/** A tenant's payments: submit, follow, list, cancel; its balance. */
export function addIntentCommands(program: Command, api: () => ApiOptions): void {
  program
    .command('submit')
    .description('submit a payment intent (tenant key)')
    .requiredOption('--chain-id <id>', 'EVM chain id', chainIdFlag)
    .option('--from <address>', 'hot wallet to send from (default: the relayer chooses one)')
    .requiredOption('--to <address>', 'recipient')
    .option('--asset <alias>', 'what to pay in: native (default) or a registered token, e.g. USDC')
    .option(
      '--amount <decimal>',
      "amount in the asset's units, e.g. 12.5 (of USDC: 12500000 base units)",
    )
    .option('--eth <amount>', 'amount in ether, e.g. 0.25 (native)')
    .option('--wei <amount>', 'amount in base units (wei, or the token’s smallest unit)')
    .option('--call-data <hex>', 'call the contract --to with these bytes instead of paying it')
    .option(
      '--abi <signature>',
      'or encode the call: a function signature, e.g. "deposit(bytes32)" (as calls allow --function takes it) or "function deposit(bytes32 ref) payable"',
    )
    .option(
      '--arg <value>',
      'an argument of --abi, in order (repeat it); JSON for arrays and tuples',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      '--valid-until <time>',
      'never sent after this: a time (2026-12-31T17:00:00Z) or a span from now (30m, 2h)',
      timeFlag('--valid-until'),
    )
    .option(
      '--not-before <time>',
      'not sent before this (as --valid-until)',
      timeFlag('--not-before'),
    )
    .option('--priority <level>', 'urgent, normal (default) or bulk', priorityFlag)
    .option('--idempotency-key <key>', 'your name for this payment (default: a new UUID)')
    .option('--wait', 'wait until the intent ends, with a progress bar')
    .action(async (flags: SubmitFlags) => {
      const options = api();
      const amount =
        flags.callData !== undefined || flags.abi !== undefined ? callOf(flags) : amountOf(flags);
      const key = flags.idempotencyKey ?? randomUUID();
      const client = apiOf(options);
      const { status, body } = await client.submit(
        {
          chainId: flags.chainId,
          ...(flags.from !== undefined && { from: flags.from }),
          to: flags.to,
          ...(flags.asset !== undefined && { asset: flags.asset }),
          ...amount,
          ...(flags.validUntil !== undefined && { validUntil: flags.validUntil }),
          ...(flags.notBefore !== undefined && { notBefore: flags.notBefore }),
          ...(flags.priority !== undefined && { priority: flags.priority }),
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
    .alias('show')
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

  program
    .command('audit <intentId>')
    .description(
      'who cancelled or reviewed an intent and what the relayer replaced or re-sent, when',
    )
    .action(showAudit(api));

  program
    .command('list')
    .description('list intents, newest first, a page at a time (--cursor for the next, or --all)')
    .option('--status <status>', 'only this status (e.g. needs_review)')
    .option('--tenant <id>', 'operator keys: only this tenant')
    .option('--limit <n>', 'at most this many', wholeNumber('--limit', 10_000), 50)
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
    .description(
      'cancel an intent: unsigned, it ends cancelled; sent but not mined, a zero-value transfer at its nonce takes it back',
    )
    .option('--note <text>', 'for the audit log')
    .action(async (intentId: string, flags: { note?: string }) => {
      const options = api();
      const intent = await apiOf(options).cancel(intentId, flags.note);
      print(options, intent, () =>
        intent.status === 'cancelled'
          ? intentDetails(intent)
          : `cancel sent: ${intent.txHash} takes nonce ${intent.nonce} back; the intent fails ` +
            `(cancelled_on_chain) once it is mined, or is confirmed if the payment is mined first\n` +
            `follow it: relayer status ${intent.id} --wait\n${intentDetails(intent)}`,
      );
    });

  for (const [decision, description] of [
    [
      'approve',
      'approve an intent awaiting approval (a key with the approve scope, not the one that submitted it)',
    ],
    ['reject', 'reject an intent awaiting approval: it ends rejected, nothing sent'],
  ] as const) {
    program
      .command(`${decision} <intentId>`)
      .description(description)
      .option('--note <text>', 'why, for the audit trail')
      .action(async (intentId: string, flags: { note?: string }) => {
        const options = api();
        const intent = await apiOf(options).decideApproval(intentId, decision, flags.note);
        print(options, intent, () => intentDetails(intent));
      });
  }
}

/** An intent's audit trail: a tenant's own intents, or any for an operator. */
export const showAudit =
  (api: () => ApiOptions) =>
  async (intentId: string): Promise<void> => {
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
  };

interface SubmitFlags {
  chainId: number;
  from?: string;
  to: string;
  asset?: string;
  amount?: string;
  eth?: string;
  wei?: string;
  callData?: string;
  abi?: string;
  arg?: string[];
  idempotencyKey?: string;
  validUntil?: string;
  notBefore?: string;
  priority?: IntentPriority;
  wait?: boolean;
}

/**
 * A contract call as the API takes it: its bytes, or its signature and arguments (each one JSON
 * when it parses as an array, an object or a boolean, else the string as typed), and the value
 * it sends (--eth or --wei; none: 0).
 */
function callOf(flags: SubmitFlags): { call: ContractCallInput; value?: string } {
  if (flags.callData !== undefined && flags.abi !== undefined)
    throw badInput('give --call-data or --abi with --arg, one of them');
  if (flags.callData !== undefined && flags.arg !== undefined)
    throw badInput('--arg goes with --abi: --call-data is the whole call');
  if (flags.asset !== undefined || flags.amount !== undefined)
    throw badInput('a call sends the native coin: give its value with --eth or --wei');
  if (flags.eth !== undefined && flags.wei !== undefined)
    throw badInput('give the value once: --eth or --wei');
  const problem = flags.eth !== undefined && decimalAmountProblem(flags.eth, 18);
  if (problem) throw badInput(`--eth: ${problem}`);
  const value = flags.eth !== undefined ? parseEther(flags.eth).toString() : flags.wei;
  const call: ContractCallInput =
    flags.callData !== undefined
      ? { data: flags.callData }
      : { abi: flags.abi!, args: (flags.arg ?? []).map(argumentOf) };
  return { call, ...(value !== undefined && { value }) };
}

function argumentOf(typed: string): unknown {
  if (!/^\s*(\[|\{|true$|false$)/.test(typed)) return typed;
  try {
    return JSON.parse(typed) as unknown;
  } catch {
    throw badInput(`--arg ${typed}: starts like JSON but does not parse`);
  }
}

/**
 * The amount as the API takes it: base units, or a decimal the API converts by the asset's
 * decimals.
 */
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
