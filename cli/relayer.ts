import { CommanderError, Option } from 'commander';
import { ApiError } from './api-client';
import { RelayerError } from '../domain/errors';
import { rejectionCodeOf } from '../domain/rejections';
import { addAdminCommands } from './admin-commands';
import { CliFailure, ExitCode, exitCodeOf } from './exit-codes';
import { addBatchCommands } from './batch-commands';
import { addIntentCommands, apiOf } from './intent-commands';
import { RelayerCommand } from './relayer-command';

/**
 * `npm run relayer -- <command>`: intents through the HTTP API, tenants and keys straight in the
 * database. `--json` prints machine-readable results (and errors, on stderr); the exit status
 * says how it went (cli/exit-codes.ts).
 */
const program = new RelayerCommand('relayer')
  .description('payment relayer: submit and follow intents, review them, manage tenants and keys')
  // From the environment without echoing it: help must never print a key or a password.
  .addOption(
    new Option('--api-url <url>', 'the relayer API')
      .env('RELAYER_API_URL')
      .default('http://127.0.0.1:8080'),
  )
  .addOption(new Option('--api-key <key>', 'tenant or operator key').env('RELAYER_API_KEY'))
  .addOption(
    new Option('--database-url <url>', 'for tenants and keys')
      .env('DATABASE_URL')
      .default('sqlite:.relayer/relayer.sqlite'),
  )
  .option('--json', 'machine-readable output')
  .exitOverride();

const globals = () =>
  program.opts<{ apiUrl: string; apiKey?: string; databaseUrl: string; json?: boolean }>();
addIntentCommands(program, globals);
addBatchCommands(program, () => ({ ...globals(), api: () => apiOf(globals()) }));
addAdminCommands(program, globals);

function failureOf(error: unknown): CliFailure {
  if (error instanceof CliFailure) return error;
  if (error instanceof ApiError) {
    const retry =
      error.retryAfterSeconds === undefined ? '' : ` (retry after ${error.retryAfterSeconds} s)`;
    return new CliFailure(
      error.body.code,
      `${error.body.message}${retry}`,
      exitCodeOf[error.body.code] ?? ExitCode.unexpected,
    );
  }
  if (error instanceof RelayerError) {
    const code = rejectionCodeOf[error.name];
    return new CliFailure(
      code ?? error.name,
      error.message,
      code ? exitCodeOf[code] : ExitCode.unexpected,
    );
  }
  if (error instanceof TypeError && /fetch failed/.test(error.message)) {
    return new CliFailure(
      'unreachable',
      `cannot reach the API at ${globals().apiUrl}: is the relayer running?`,
      ExitCode.unexpected,
    );
  }
  return new CliFailure(
    'unexpected',
    error instanceof Error ? error.message : String(error),
    ExitCode.unexpected,
  );
}

async function main(): Promise<void> {
  try {
    await program.parseAsync();
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are not failures; usage errors were already printed by commander.
      process.exit(error.exitCode === 0 ? 0 : ExitCode.badInput);
    }
    const failure = failureOf(error);
    if (globals().json)
      console.error(JSON.stringify({ code: failure.code, message: failure.message }));
    else console.error(`error: ${failure.code}: ${failure.message}`);
    process.exit(failure.exitCode);
  }
}

void main();
