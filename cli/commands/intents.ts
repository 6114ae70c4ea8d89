import type { Command } from 'commander';
import { apiOf, type ApiOptions } from '../api-options';
import { chainIdFlag, priorityFlag, timeFlag, wholeNumber } from '../flags';
import { randomUUID } from 'node:crypto';
import type { IntentView } from '../../api/schemas/intents';
import { CliFailure, ExitCode } from '../exit-codes';
import { attemptTable, balanceTable, intentDetails, intentTable, print } from '../output';
import { watchIntent } from '../watch-intent';
import { paymentOfFlags, type SubmitFlags } from '../submit-flags';
import { addSpeedUpCommand } from './speed-up';
import {
  callerReferenceOf,
  withCallerReferenceOptions,
  type CallerReferenceFlags,
} from './caller-references';

/** A tenant's payments: submit, follow, list, cancel, speed up; its balance. */
export function addIntentCommands(program: Command, api: () => ApiOptions): void {
  addSubmitCommand(program, api);
  addStatusCommand(program, api);
  addAttemptsCommand(program, api);
  addAuditCommand(program, api);
  addListCommand(program, api);
  addBalanceCommand(program, api);
  addCancelCommand(program, api);
  addSpeedUpCommand(program, api);
  addApprovalCommands(program, api);
}

function addSubmitCommand(program: Command, api: () => ApiOptions): void {
  withCallerReferenceOptions(program.command('submit'), {
    reference: 'your own id for it, e.g. a payout id (not personal data: it is searchable)',
    metadata: 'a key and value of yours it carries (repeat it), e.g. invoice=INV-7',
  })
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
      const amount = paymentOfFlags(flags);
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
          ...callerReferenceOf(flags),
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
}

function addStatusCommand(program: Command, api: () => ApiOptions): void {
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
}

function addAttemptsCommand(program: Command, api: () => ApiOptions): void {
  program
    .command('attempts <intentId>')
    .description('every transaction signed for an intent (replacements, re-signs)')
    .action(async (intentId: string) => {
      const options = api();
      const attempts = await apiOf(options).attempts(intentId);
      print(options, attempts, () => attemptTable(attempts));
    });
}

function addAuditCommand(program: Command, api: () => ApiOptions): void {
  program
    .command('audit <intentId>')
    .description(
      'who cancelled or reviewed an intent and what the relayer replaced or re-sent, when',
    )
    .action(showAudit(api));
}

function addListCommand(program: Command, api: () => ApiOptions): void {
  withCallerReferenceOptions(program.command('list'), {
    reference: 'only the intents with this reference',
    metadata: 'only the intents whose metadata holds this key and value (repeat it: each)',
  })
    .description('list intents, newest first, a page at a time (--cursor for the next, or --all)')
    .option('--status <status>', 'only this status (e.g. needs_review)')
    .option('--tenant <id>', 'operator keys: only this tenant')
    .option('--limit <n>', 'at most this many', wholeNumber('--limit', 10_000), 50)
    .option('--cursor <cursor>', 'start after the page that answered this nextCursor')
    .option('--all', 'every intent that matches, whatever --limit says')
    .action(
      async (
        flags: CallerReferenceFlags & {
          status?: string;
          tenant?: string;
          limit: number;
          cursor?: string;
          all?: boolean;
        },
      ) => {
        const options = api();
        const client = apiOf(options);
        const intents: IntentView[] = [];
        let cursor = flags.cursor;
        do {
          const page = await client.list({
            status: flags.status,
            tenantId: flags.tenant,
            ...callerReferenceOf(flags),
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
}

function addBalanceCommand(program: Command, api: () => ApiOptions): void {
  program
    .command('balance')
    .description("your tenant's balances: available to pay out, held for open intents")
    .action(async () => {
      const options = api();
      const balances = await apiOf(options).balances();
      print(options, balances, () => balanceTable(balances));
    });
}

function addCancelCommand(program: Command, api: () => ApiOptions): void {
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
}

/** `approve` and `reject`: the second key's decision on an intent awaiting approval. */
function addApprovalCommands(program: Command, api: () => ApiOptions): void {
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

function exitUnlessConfirmed(status: string): void {
  if (status !== 'confirmed') {
    throw new CliFailure(status, `the intent ended ${status}`, ExitCode.notConfirmed);
  }
}
