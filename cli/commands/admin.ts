import { type Command } from 'commander';
import { print } from '../output';

import { addKeyCommands } from './api-keys';
import {
  chainIdFlag,
  etherFlag,
  fairnessWeightFlag,
  onOffFlag,
  tenantIdFlag,
  wholeNumber,
} from '../flags';
import { badInput } from '../exit-codes';
import { books, type DatabaseOptions } from './books';

const chainIdHelp = 'the chain whose book it credits (default: the one chain the relayer serves)';
const limit = wholeNumber('--max-in-flight');
const fairnessWeightHelp =
  'its share beside other tenants of one priority, 0.001 to 1000 or "default" (1): its workflows start with it';

/**
 * Tenants and API keys, written straight to the database (DATABASE_URL) of a relayer that has
 * started once: the bootstrap an operator does before any key exists.
 */
export function addAdminCommands(program: Command, db: () => DatabaseOptions): void {
  const tenants = program.command('tenants').description('operator: tenants and their balances');
  addCreateTenantCommand(tenants, db);
  addUpdateTenantCommand(tenants, db);
  addDepositTenantCommand(tenants, db);
  addKeyCommands(program, db);
}

function addCreateTenantCommand(tenants: Command, db: () => DatabaseOptions): void {
  tenants
    .command('create <tenantId>')
    .description('create a tenant (no-op if it exists)')
    .option('--name <name>', 'display name (default: the id)')
    .option('--max-in-flight <n>', 'its open-intent limit (default: TENANT_MAX_IN_FLIGHT)', limit)
    .option(
      '--requests-per-minute <n>',
      "each of its keys' request limit, unless a key has its own (default: API_REQUESTS_PER_KEY_PER_MINUTE)",
      wholeNumber('--requests-per-minute'),
    )
    .option(
      '--deposit <ether>',
      'credit its native book on the chain this much',
      etherFlag('--deposit'),
    )
    .option('--chain-id <id>', chainIdHelp, chainIdFlag)
    .option('--fairness-weight <weight>', fairnessWeightHelp, fairnessWeightFlag)
    .action(
      async (
        id: string,
        flags: {
          name?: string;
          maxInFlight?: number;
          requestsPerMinute?: number;
          deposit?: bigint;
          chainId?: number;
          fairnessWeight?: number | null;
        },
      ) => {
        const options = db();
        const tenant = tenantIdFlag(id);
        const booked = await books(options.databaseUrl, (database, { setUpTenant }) =>
          setUpTenant(
            database,
            {
              id: tenant,
              name: flags.name ?? tenant,
              maxInFlight: flags.maxInFlight,
              requestsPerMinute: flags.requestsPerMinute,
              fairnessWeight: flags.fairnessWeight,
              ...(flags.deposit !== undefined && {
                deposit: { chainId: flags.chainId, wei: flags.deposit },
              }),
            },
            new Date(),
          ),
        );
        const view = {
          id: tenant,
          ...(booked && {
            chainId: booked.chainId,
            asset: 'native',
            available: booked.balance.available.toString(),
            held: booked.balance.held.toString(),
          }),
        };
        print(options, view, () =>
          booked
            ? `tenant ${tenant}, native on chain ${booked.chainId}: ${view.available} wei available, ${view.held} wei held`
            : `tenant ${tenant}: created (no deposit: its books open with one)`,
        );
      },
    );
}

function addUpdateTenantCommand(tenants: Command, db: () => DatabaseOptions): void {
  tenants
    .command('update <tenantId>')
    .description(
      "change a tenant's settings: its weight among tenants of one priority, whether its references are unique",
    )
    .option('--fairness-weight <weight>', fairnessWeightHelp, fairnessWeightFlag)
    .option(
      '--unique-references <on|off>',
      'on: a second intent with a reference one of its intents has is refused (409 reference_taken)',
      onOffFlag('--unique-references'),
    )
    .action(
      async (id: string, flags: { fairnessWeight?: number | null; uniqueReferences?: boolean }) => {
        const options = db();
        const tenant = tenantIdFlag(id);
        if (flags.fairnessWeight === undefined && flags.uniqueReferences === undefined) {
          throw badInput('give --fairness-weight or --unique-references (or both)');
        }
        await books(options.databaseUrl, async (database, services) => {
          if (flags.fairnessWeight !== undefined) {
            await services.weighTenant(database, tenant, flags.fairnessWeight);
          }
          if (flags.uniqueReferences !== undefined) {
            await services.setUniqueReferences(database, tenant, flags.uniqueReferences);
          }
        });
        const view = {
          id: tenant,
          ...(flags.fairnessWeight !== undefined && { fairnessWeight: flags.fairnessWeight ?? 1 }),
          ...(flags.uniqueReferences !== undefined && {
            uniqueReferences: flags.uniqueReferences,
          }),
        };
        print(options, view, () =>
          [
            `tenant ${tenant}:`,
            ...(view.fairnessWeight !== undefined
              ? [`fairness weight ${view.fairnessWeight}`]
              : []),
            ...(view.uniqueReferences !== undefined
              ? [`unique references ${view.uniqueReferences ? 'on' : 'off'}`]
              : []),
          ].join(' '),
        );
      },
    );
}

function addDepositTenantCommand(tenants: Command, db: () => DatabaseOptions): void {
  tenants
    .command('deposit <tenantId>')
    .description("credit a tenant's book of an asset on a chain (opens it)")
    .requiredOption('--amount <decimal>', "in the asset's units, e.g. 12.5")
    .option('--asset <alias>', 'native (default) or a registered token', 'native')
    .option('--chain-id <id>', chainIdHelp, chainIdFlag)
    .action(async (id: string, flags: { amount: string; asset: string; chainId?: number }) => {
      const options = db();
      const tenant = tenantIdFlag(id);
      const deposited = await books(
        options.databaseUrl,
        async (database, { servedChain, baseUnitsOfBody, depositAsset }) => {
          const chainId = await servedChain(database, flags.chainId);
          const amount = await baseUnitsOfBody(
            database,
            { chainId, asset: flags.asset, decimalAmount: flags.amount },
            '--amount',
          );
          const request = { tenantId: tenant, chainId, asset: flags.asset, amount };
          return { chainId, ...(await depositAsset(database, request, new Date())) };
        },
      );
      const view = {
        id: tenant,
        chainId: deposited.chainId,
        asset: flags.asset,
        book: deposited.asset,
        available: deposited.balance.available.toString(),
        held: deposited.balance.held.toString(),
      };
      print(
        options,
        view,
        () =>
          `tenant ${tenant}, ${flags.asset} on chain ${view.chainId}: ${view.available} available, ${view.held} held (base units)`,
      );
    });
}
