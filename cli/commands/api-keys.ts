import { Option, type Command } from 'commander';
import { UnknownTenantError } from '../../domain/errors';
import {
  apiScopes,
  defaultKeyScopes,
  operatorKeyScopes,
  scopeMeaning,
  scopesForKey,
  tenantKeyScopes,
} from '../../domain/api-scopes';
import type { ApiKeyInfo } from '../../service/api-keys';
import { table } from '../table';
import { durationFlag } from '../duration';
import { badInput, CliFailure, ExitCode } from '../exit-codes';
import { print } from '../output';

import { tenantIdFlag, wholeNumber } from '../flags';
import { books, type DatabaseOptions } from './books';

/**
 * A key's scopes for the table as held: "all" only when it holds every one its kind may hold;
 * "all but approve" for the defaults ("all but approve, redact" for an operator's: each is given
 * by name only); else each one.
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

/** API keys, written straight to the relayer's database: the bootstrap before any key exists. */
export function addKeyCommands(program: Command, db: () => DatabaseOptions): void {
  const keys = program
    .command('keys')
    .description('operator: API keys (only their hashes are stored)');
  addCreateKeyCommand(keys, db);
  addRotateKeyCommand(keys, db);
  addListKeyCommand(keys, db);
  addRevokeKeyCommand(keys, db);
}

function addCreateKeyCommand(keys: Command, db: () => DatabaseOptions): void {
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
      wholeNumber('--requests-per-minute'),
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
        const created = await books(options.databaseUrl, (database, { createApiKey }) =>
          createApiKey(
            database,
            flags.operator
              ? { role: 'operator', ...common }
              : { role: 'tenant', tenantId: tenantIdFlag(flags.tenant!), ...common },
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
}

function addRotateKeyCommand(keys: Command, db: () => DatabaseOptions): void {
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
      const rotated = await books(options.databaseUrl, (database, { rotateApiKey }) =>
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
}

function addListKeyCommand(keys: Command, db: () => DatabaseOptions): void {
  keys
    .command('list')
    .description('every key, without secrets (times in UTC; last use to the minute)')
    .action(async () => {
      const options = db();
      const all = await books(options.databaseUrl, (database, { listKeys }) => listKeys(database));
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
}

function addRevokeKeyCommand(keys: Command, db: () => DatabaseOptions): void {
  keys
    .command('revoke <keyId>')
    .description('the key stops working at once')
    .action(async (keyId: string) => {
      const options = db();
      const revoked = await books(options.databaseUrl, (database, { revokeKey }) =>
        revokeKey(database, keyId, new Date()),
      );
      if (!revoked) throw new CliFailure('not_found', `no live key ${keyId}`, ExitCode.notFound);
      print(options, { id: keyId, revoked }, () => `key ${keyId} revoked`);
    });
}
