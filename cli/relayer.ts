import { CommanderError } from 'commander';
import { ApiError } from './api-client';
import { RelayerError } from '../domain/errors';
import { rejectionCodeOf } from '../domain/error-catalogue';
import { CliFailure, ExitCode, exitCodeOf } from './exit-codes';
import { relayerProgram, type RelayerGlobals } from './program';

/** The CLI's entry point: runs the program; a failure is one line (or JSON) and an exit code. */
const program = relayerProgram();
const globals = () => program.opts<RelayerGlobals>();

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
    const code = rejectionCodeOf(error.name);
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
