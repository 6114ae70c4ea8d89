import type { Command } from 'commander';
import { parseEther } from 'viem';
import { UnknownTenantError } from '../../domain/errors';
import { tenantIdSchema } from '../../domain/intent-request';
import { createApiKey, listKeys, revokeKey } from '../../service/api-keys';
import { baseUnitsOfBody, depositAsset, servedChain } from '../../service/assets';
import { missingSqliteFile, setUpTenant, withBooks } from '../../service/tenants';
import { table } from '../table';
import { decimalAmountProblem } from '../decimal-amount';
import { badInput, CliFailure, ExitCode } from '../exit-codes';
import { print, type OutputOptions } from '../output';

interface DatabaseOptions extends OutputOptions {
  databaseUrl: string;
}

const tenantId = (value: string) => {
  const parsed = tenantIdSchema.safeParse(value);
  if (!parsed.success) throw badInput(`tenant: ${parsed.error.issues[0]!.message}`);
  return parsed.data;
};

const ether = (flag: string) => (value: string) => {
  const problem = decimalAmountProblem(value);
  if (problem) throw badInput(`${flag}: ${problem}`);
  return parseEther(value);
};

const chainIdHelp = 'the chain whose book it credits (default: the one chain the relayer serves)';
const chainIdFlag = (value: string) => {
  if (!/^\d+$/.test(value)) throw badInput(`--chain-id: must be a whole number (got "${value}")`);
  return Number(value);
};

const limit = (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw badInput(`--max-in-flight: must be a whole number from 1 (got "${value}")`);
  }
  return Number(value);
};

/** Where `npm start` keeps its relayer's books (dev/demo.ts, its default --dir). */
const demoDatabaseUrl = 'sqlite:.relayer/demo/relayer.sqlite';

/**
 * The books of an existing relayer, never a new empty database: a mistyped or unset
 * DATABASE_URL is refused with where the relayer's usually are.
 */
function books<T>(databaseUrl: string, work: Parameters<typeof withBooks<T>>[1]): Promise<T> {
  const missing = missingSqliteFile(databaseUrl);
  if (missing !== undefined) {
    throw new CliFailure(
      'no_database',
      `no relayer database at ${missing}: set DATABASE_URL to the relayer's ` +
        `(the demo's: ${demoDatabaseUrl}); a relayer creates its own when it first starts`,
      ExitCode.badInput,
    );
  }
  return withBooks(databaseUrl, work);
}

/**
 * Tenants and API keys, written straight to the database (DATABASE_URL) of a relayer that has
 * started once: the bootstrap an operator does before any key exists.
 */
export function addAdminCommands(program: Command, db: () => DatabaseOptions): void {
  const tenants = program.command('tenants').description('operator: tenants and their balances');
  tenants
    .command('create <tenantId>')
    .description('create a tenant (no-op if it exists)')
    .option('--name <name>', 'display name (default: the id)')
    .option('--max-in-flight <n>', 'its open-intent limit (default: TENANT_MAX_IN_FLIGHT)', limit)
    .option(
      '--deposit <ether>',
      'credit its native book on the chain this much',
      ether('--deposit'),
    )
    .option('--chain-id <id>', chainIdHelp, chainIdFlag)
    .action(
      async (
        id: string,
        flags: { name?: string; maxInFlight?: number; deposit?: bigint; chainId?: number },
      ) => {
        const options = db();
        const tenant = tenantId(id);
        const booked = await books(options.databaseUrl, (database) =>
          setUpTenant(
            database,
            {
              id: tenant,
              name: flags.name ?? tenant,
              maxInFlight: flags.maxInFlight,
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

  tenants
    .command('deposit <tenantId>')
    .description("credit a tenant's book of an asset on a chain (opens it)")
    .requiredOption('--amount <decimal>', "in the asset's units, e.g. 12.5")
    .option('--asset <alias>', 'native (default) or a registered token', 'native')
    .option('--chain-id <id>', chainIdHelp, chainIdFlag)
    .action(async (id: string, flags: { amount: string; asset: string; chainId?: number }) => {
      const options = db();
      const tenant = tenantId(id);
      const deposited = await books(options.databaseUrl, async (database) => {
        const chainId = await servedChain(database, flags.chainId);
        const amount = await baseUnitsOfBody(
          database,
          { chainId, asset: flags.asset, decimalAmount: flags.amount },
          '--amount',
        );
        const request = { tenantId: tenant, chainId, asset: flags.asset, amount };
        return { chainId, ...(await depositAsset(database, request, new Date())) };
      });
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

  const keys = program
    .command('keys')
    .description('operator: API keys (only their hashes are stored)');
  keys
    .command('create')
    .description('create a key and print it: it is shown this once')
    .option('--tenant <id>', 'a key that acts for this tenant')
    .option('--operator', 'an operator key (review endpoints, every tenant)')
    .option('--label <text>', 'who or what holds it', 'cli')
    .action(async (flags: { tenant?: string; operator?: boolean; label: string }) => {
      const options = db();
      if (!!flags.tenant === !!flags.operator)
        throw badInput('give exactly one of --tenant <id> or --operator');
      const created = await books(options.databaseUrl, (database) =>
        createApiKey(
          database,
          flags.operator
            ? { role: 'operator', label: flags.label }
            : { role: 'tenant', tenantId: tenantId(flags.tenant!), label: flags.label },
          new Date(),
        ),
      ).catch((error: unknown) => {
        if (!(error instanceof UnknownTenantError)) throw error;
        throw badInput(
          `no tenant "${flags.tenant}" in ${options.databaseUrl}: create it first with ` +
            `\`npm run relayer -- tenants create ${flags.tenant}\``,
        );
      });
      print(
        options,
        created,
        () => `key ${created.id} created; keep it now, it is never shown again:\n${created.apiKey}`,
      );
    });
  keys
    .command('list')
    .description('every key, without secrets')
    .action(async () => {
      const options = db();
      const all = await books(options.databaseUrl, listKeys);
      print(options, all, () => {
        const rows = table(
          ['id', 'role', 'tenant', 'label', 'created', 'revoked'],
          ['left', 'left', 'left', 'left', 'left', 'left'],
        );
        for (const key of all)
          rows.push([
            key.id,
            key.role,
            key.tenantId ?? '',
            key.label,
            key.createdAt,
            key.revoked ? 'yes' : '',
          ]);
        return rows.toString();
      });
    });
  keys
    .command('revoke <keyId>')
    .description('the key stops working at once')
    .action(async (keyId: string) => {
      const options = db();
      const revoked = await books(options.databaseUrl, (database) =>
        revokeKey(database, keyId, new Date()),
      );
      if (!revoked) throw new CliFailure('not_found', `no live key ${keyId}`, ExitCode.notFound);
      print(options, { id: keyId, revoked }, () => `key ${keyId} revoked`);
    });
}
