import type { Command } from 'commander';
import { formatUnits } from 'viem/utils';
import type { PolicyView } from '../../api/schemas/policies';
import { nativeAsset, nativeUnits } from '../../domain/asset';
import { apiOf, type ApiOptions } from '../api-options';
import { baseUnits, chainIdFlag, wholeNumber } from '../flags';
import { badInput } from '../exit-codes';
import { print } from '../output';
import { table } from '../table';
import type { RelayerApiClient } from '../api-client';

const boundHelp = (what: string) => `${what}, in the asset's units (e.g. 2.5); "none" removes it`;

/** The asset's decimals, as the relayer registered it (native: 18). */
async function decimalsOf(api: RelayerApiClient, chainId: number, asset: string): Promise<number> {
  if (asset === nativeAsset) return nativeUnits.decimals;
  const token = (await api.tokens(chainId)).find(
    (each) => each.alias === asset || each.address.toLowerCase() === asset.toLowerCase(),
  );
  if (!token) throw badInput(`--asset: "${asset}" is not registered on chain ${chainId}`);
  return token.decimals;
}

function policyTable(policy: PolicyView): string {
  const rows = table(
    ['chain', 'asset', 'most per intent', 'per 24 h', 'per 7 days', 'approval from'],
    ['right', 'left', 'right', 'right', 'right', 'right'],
  );
  for (const limits of policy.limits) {
    const shown = (units: string | null) =>
      units === null ? '—' : formatUnits(BigInt(units), limits.decimals);
    rows.push([
      limits.chainId,
      limits.asset,
      shown(limits.maxPerIntent),
      shown(limits.perDay),
      shown(limits.perWeek),
      shown(limits.approvalThreshold),
    ]);
  }
  const lists =
    policy.allowListChains.length === 0
      ? 'recipients: anyone not denied, on every chain'
      : `recipients: only allow-listed ones on chain ${policy.allowListChains.join(', ')}`;
  const head = `tenant ${policy.tenantId}, policy version ${policy.version}`;
  return policy.limits.length === 0
    ? `${head}: no spend limits\n${lists}`
    : `${head}\n${rows.toString()}\n${lists}`;
}

/** A tenant's payment policy: spend limits, who may be paid, every change audited. */
export function addPolicyCommands(program: Command, api: () => ApiOptions): void {
  const policies = program
    .command('policies')
    .description("a tenant's payment policy: spend limits and recipient rules (operator sets)");
  addGetPolicyCommand(policies, api);
  addSetPolicyCommand(policies, api);
  addChangesPolicyCommand(policies, api);
  const recipients = program
    .command('recipients')
    .description("the recipients on a tenant's allow- and deny-lists (operator sets)");
  addListPolicyCommand(recipients, api);
  addAddPolicyCommand(recipients, api);
  addRemovePolicyCommand(recipients, api);
}

function addGetPolicyCommand(policies: Command, api: () => ApiOptions): void {
  policies
    .command('get <tenant>')
    .description('the policy in force: limits per asset and chain, allow-list chains')
    .action(async (tenantId: string) => {
      const options = api();
      const policy = await apiOf(options).policy(tenantId);
      print(options, policy, () => policyTable(policy));
    });
}

function addSetPolicyCommand(policies: Command, api: () => ApiOptions): void {
  policies
    .command('set <tenant>')
    .description("set one asset's limits on a chain, or who may be paid there")
    .requiredOption('--chain-id <id>', 'EVM chain id', chainIdFlag)
    .option('--asset <alias>', 'native (default) or a registered token', nativeAsset)
    .option('--max-per-intent <amount>', boundHelp('the most one intent may pay'))
    .option('--per-24h <amount>', boundHelp('the most that may leave in any 24 hours'))
    .option('--per-7d <amount>', boundHelp('the most that may leave in any 7 days'))
    .option(
      '--approval-from <amount>',
      boundHelp('an intent of at least this much waits for a second key to approve it'),
    )
    .option('--recipients <rule>', 'allow-list (only listed recipients) or any (anyone not denied)')
    .action(
      async (
        tenantId: string,
        flags: {
          chainId: number;
          asset: string;
          maxPerIntent?: string;
          per24h?: string;
          per7d?: string;
          approvalFrom?: string;
          recipients?: string;
        },
      ) => {
        const bounds = [flags.maxPerIntent, flags.per24h, flags.per7d, flags.approvalFrom];
        if (bounds.every((bound) => bound === undefined) && flags.recipients === undefined) {
          throw badInput(
            'give --max-per-intent, --per-24h, --per-7d, --approval-from or --recipients',
          );
        }
        if (flags.recipients !== undefined && !['allow-list', 'any'].includes(flags.recipients)) {
          throw badInput(`--recipients: allow-list or any (got "${flags.recipients}")`);
        }
        const options = api();
        const client = apiOf(options);
        let policy: PolicyView | undefined;
        if (bounds.some((bound) => bound !== undefined)) {
          const decimals = await decimalsOf(client, flags.chainId, flags.asset);
          policy = await client.setPolicyLimits(tenantId, {
            chainId: flags.chainId,
            asset: flags.asset,
            maxPerIntent: baseUnits('--max-per-intent', flags.maxPerIntent, decimals),
            perDay: baseUnits('--per-24h', flags.per24h, decimals),
            perWeek: baseUnits('--per-7d', flags.per7d, decimals),
            approvalThreshold: baseUnits('--approval-from', flags.approvalFrom, decimals),
          });
        }
        if (flags.recipients !== undefined) {
          policy = await client.setRecipientRule(
            tenantId,
            flags.chainId,
            flags.recipients === 'allow-list' ? 'allow_list' : 'any',
          );
        }
        print(options, policy, () => policyTable(policy!));
      },
    );
}

function addChangesPolicyCommand(policies: Command, api: () => ApiOptions): void {
  policies
    .command('changes <tenant>')
    .description('every change to the policy, the latest first: who, what, before → after')
    .option('--limit <n>', 'at most this many', wholeNumber('--limit', 500))
    .action(async (tenantId: string, flags: { limit?: number }) => {
      const options = api();
      const changes = await apiOf(options).policyChanges(tenantId, flags.limit);
      print(options, changes, () => {
        const rows = table(
          ['version', 'at', 'by', 'what', 'before', 'after'],
          ['right', 'left', 'left', 'left', 'left', 'left'],
        );
        const text = (value: unknown) => (value === null ? '—' : JSON.stringify(value));
        for (const { version, at, changedBy, change } of changes) {
          rows.push([version, at, changedBy, change.what, text(change.before), text(change.after)]);
        }
        return rows.toString();
      });
    });
}

function addListPolicyCommand(recipients: Command, api: () => ApiOptions): void {
  recipients
    .command('list <tenant>')
    .option('--chain-id <id>', 'one chain only', chainIdFlag)
    .action(async (tenantId: string, flags: { chainId?: number }) => {
      const options = api();
      const list = await apiOf(options).recipients(tenantId, flags.chainId);
      print(options, list, () => {
        const rows = table(
          ['chain', 'list', 'address', 'label'],
          ['right', 'left', 'left', 'left'],
        );
        for (const entry of list)
          rows.push([entry.chainId, entry.list, entry.address, entry.label]);
        return rows.toString();
      });
    });
}

function addAddPolicyCommand(recipients: Command, api: () => ApiOptions): void {
  recipients
    .command('add <tenant> <address>')
    .description('put a recipient on the allow-list (--allow) or the deny-list (--deny)')
    .requiredOption('--chain-id <id>', 'EVM chain id', chainIdFlag)
    .requiredOption('--label <text>', 'who the recipient is')
    .option('--allow', 'may be paid (on an allow-list chain, only these)')
    .option('--deny', 'never paid')
    .action(
      async (
        tenantId: string,
        address: string,
        flags: { chainId: number; label: string; allow?: boolean; deny?: boolean },
      ) => {
        if (flags.allow === flags.deny) throw badInput('give --allow or --deny, one of them');
        const options = api();
        const list = flags.allow ? 'allow' : 'deny';
        const added = await apiOf(options).addRecipient(tenantId, {
          chainId: flags.chainId,
          address,
          list,
          label: flags.label,
        });
        print(
          options,
          added,
          () => `${added.address} on ${tenantId}'s ${list}-list, chain ${added.chainId}`,
        );
      },
    );
}

function addRemovePolicyCommand(recipients: Command, api: () => ApiOptions): void {
  recipients
    .command('remove <tenant> <address>')
    .description("take a recipient off the tenant's lists on a chain")
    .requiredOption('--chain-id <id>', 'EVM chain id', chainIdFlag)
    .action(async (tenantId: string, address: string, flags: { chainId: number }) => {
      const options = api();
      await apiOf(options).removeRecipient(tenantId, flags.chainId, address);
      print(
        options,
        { tenantId, chainId: flags.chainId, address, removed: true },
        () => `${address} off ${tenantId}'s lists on chain ${flags.chainId}`,
      );
    });
}
