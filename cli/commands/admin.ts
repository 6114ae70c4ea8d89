import { Option, type Command } from 'commander';
import { parseEther } from 'viem';
import { UnknownTenantError } from '../../domain/errors';
import { tenantIdSchema } from '../../domain/intent-request';
import {
  apiScopes,
  defaultKeyScopes,
  operatorKeyScopes,
  scopeMeaning,
  scopesForKey,
  tenantKeyScopes,
} from '../../domain/api-scopes';
import {
  createApiKey,
  listKeys,
  revokeKey,
  rotateApiKey,
  type ApiKeyInfo,
} from '../../service/api-keys';
import { baseUnitsOfBody, depositAsset, servedChain } from '../../service/assets';
import { missingSqliteFile, setUpTenant, withBooks } from '../../service/tenants';
import { table } from '../table';
import { decimalAmountProblem } from '../decimal-amount';
import { durationFlag } from '../duration';
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

const wholeFromOne = (flag: string) => (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw badInput(`${flag}: must be a whole number from 1 (got "${value}")`);
  }
  return Number(value);
};
const limit = wholeFromOne('--max-in-flight');

/**
 * A key's scopes for the table as held: "all" only when it holds every one its kind may hold;
 * "all but approve" for the defaults (approve is given by name only); else each one.
 */
const scopesText = (key: ApiKeyInfo): string => {
  const tenantKey = key.tenantId !== null;
  const missing = (tenantKey ? tenantKeyScopes : operatorKeyScopes).filter(
    (scope) => !key.scopes.includes(scope),
  );
  if (missing.length === 0) return 'all';
  if (!defaultKeyScopes(tenantKey).every((scope) => key.scopes.includes(scope))) {
    return key.scopes.join(' ');
  }
  return `all but ${missing.join(', ')}`;
};

/** A key's time as `YYYY-MM-DD hh:mm` (UTC): its times are noted to the minute. */
const toMinute = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;

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
      '--requests-per-minute <n>',
      "each of its keys' request limit, unless a key has its own (default: API_REQUESTS_PER_KEY_PER_MINUTE)",
      wholeFromOne('--requests-per-minute'),
    )
    .option(
      '--deposit <ether>',
      'credit its native book on the chain this much',
      ether('--deposit'),
    )
    .option('--chain-id <id>', chainIdHelp, chainIdFlag)
    .action(
      async (
        id: string,
        flags: {
          name?: string;
          maxInFlight?: number;
          requestsPerMinute?: number;
          deposit?: bigint;
          chainId?: number;
        },
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
              requestsPerMinute: flags.requestsPerMinute,
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
    .option('--operator', 'an operator key (every tenant)')
    .option('--label <text>', 'who or what holds it', 'cli')
    .option(
      '--scope <scope>',
      `what it may do, repeated (default: all a key of its kind may):\n${apiScopes
        .map((scope) => `  ${scope}: ${scopeMeaning[scope]}`)
        .join('\n')}`,
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      '--requests-per-minute <n>',
      "its own request limit (default: the API's API_REQUESTS_PER_KEY_PER_MINUTE)",
      wholeFromOne('--requests-per-minute'),
    )
    .option(
      '--expires <duration>',
      'it stops working after this: 90m, 12h, 30d (default: never)',
      durationFlag('--expires'),
    )
    .action(
      async (flags: {
        tenant?: string;
        operator?: boolean;
        label: string;
        scope: string[];
        expires?: number;
        requestsPerMinute?: number;
      }) => {
        const options = db();
        if (!!flags.tenant === !!flags.operator)
          throw badInput('give exactly one of --tenant <id> or --operator');
        const asked = scopesForKey(flags.scope, !flags.operator);
        if ('problem' in asked) throw badInput(`--scope: ${asked.problem}`);
        const now = new Date();
        const expiresAt =
          flags.expires === undefined ? undefined : new Date(now.getTime() + flags.expires);
        const common = {
          label: flags.label,
          scopes: asked.scopes,
          expiresAt,
          requestsPerMinute: flags.requestsPerMinute,
        };
        const created = await books(options.databaseUrl, (database) =>
          createApiKey(
            database,
            flags.operator
              ? { role: 'operator', ...common }
              : { role: 'tenant', tenantId: tenantId(flags.tenant!), ...common },
            now,
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
          { ...created, scopes: asked.scopes, expiresAt: expiresAt?.toISOString() ?? null },
          () =>
            `key ${created.id} created (${asked.scopes.join(', ')}` +
            `${expiresAt ? `; expires ${expiresAt.toISOString()}` : ''}); ` +
            `keep it now, it is never shown again:\n${created.apiKey}`,
        );
      },
    );
  keys
    .command('rotate <keyId>')
    .description(
      'a new key with the same tenant, scopes, label and expiry; the old one keeps working for the grace, then stops',
    )
    .addOption(
      new Option('--grace <duration>', 'how long the old key still works: 90m, 12h, 30d')
        .argParser(durationFlag('--grace'))
        .default(86_400_000, '24h'),
    )
    .action(async (keyId: string, flags: { grace: number }) => {
      const options = db();
      const rotated = await books(options.databaseUrl, (database) =>
        rotateApiKey(database, keyId, flags.grace, new Date()),
      );
      if (!rotated) {
        throw new CliFailure(
          'not_found',
          `no live key ${keyId} that has not been rotated already`,
          ExitCode.notFound,
        );
      }
      print(
        options,
        rotated,
        () =>
          `key ${rotated.id} replaces ${keyId}, which works until ${rotated.oldKeyUntil}; ` +
          `keep the new key now, it is never shown again:\n${rotated.apiKey}`,
      );
    });
  keys
    .command('list')
    .description('every key, without secrets (times in UTC; last use to the minute)')
    .action(async () => {
      const options = db();
      const all = await books(options.databaseUrl, listKeys);
      const now = new Date();
      print(options, all, () => {
        const rows = table(
          [
            'id',
            'tenant',
            'label',
            'scopes',
            'req/min',
            'created',
            'expires',
            'last used',
            'state',
          ],
          ['left', 'left', 'left', 'left', 'right', 'left', 'left', 'left', 'left'],
        );
        for (const key of all)
          rows.push([
            key.id,
            key.tenantId ?? '(operator)',
            key.label,
            scopesText(key),
            key.requestsPerMinute ?? 'default',
            toMinute(key.createdAt),
            key.expiresAt ? toMinute(key.expiresAt) : '',
            key.lastUsedAt ? toMinute(key.lastUsedAt) : 'never',
            key.revoked
              ? 'revoked'
              : key.expiresAt !== null && new Date(key.expiresAt) <= now
                ? 'expired'
                : key.replacedBy
                  ? `replaced by ${key.replacedBy}`
                  : 'live',
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
