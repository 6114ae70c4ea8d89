import { CommanderError } from 'commander';
import { ApiError } from './api-client';
import { RelayerError } from '../domain/errors';
import { rejectionCodeOf } from '../domain/error-catalogue';
import { CliFailure, ExitCode, exitCodeOf } from './exit-codes';
import { relayerProgram, type RelayerGlobals } from './program';

/**
 * Runs the CLI on `argv` (node's, with the script): a failure is one line (or JSON) on stderr,
 * and the exit code is the answer (0 when it went well). Apart from the entry point, so a test
 * runs a command inside its own process.
 */
export async function runCli(argv: readonly string[]): Promise<number> {
  const program = relayerProgram();
  try {
    await program.parseAsync([...argv]);
    return ExitCode.ok;
  } catch (error) {
    // Help and version are not failures; usage errors were already printed by commander.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : ExitCode.badInput;
    const globals = program.opts<RelayerGlobals>();
    const failure = failureOf(error, globals);
    if (globals.json)
      console.error(JSON.stringify({ code: failure.code, message: failure.message }));
    else console.error(`error: ${failure.code}: ${failure.message}`);
    return failure.exitCode;
  }
}

function failureOf(error: unknown, globals: RelayerGlobals): CliFailure {
  if (error instanceof CliFailure) return error;
  if (error instanceof ApiError) {
    const retry =
      error.retryAfterSeconds === undefined ? '' : ` (retry after ${error.retryAfterSeconds} s)`;
    // What to do about it, where the relayer said: on a line of its own after what happened.
    const advice = error.body.advice === undefined ? '' : `\n  ${error.body.advice}`;
    return new CliFailure(
      error.body.code,
      `${error.body.message}${retry}${advice}`,
      exitCodeOf[error.body.code] ?? ExitCode.unexpected,
    );
  }
  if (error instanceof RelayerError) {
    const code = rejectionCodeOf(error.name);
    return new CliFailure(
      code ?? error.name,
      error.advice === undefined ? error.message : `${error.message}\n  ${error.advice}`,
      code ? exitCodeOf[code] : ExitCode.unexpected,
    );
  }
  if (error instanceof TypeError && /fetch failed/.test(error.message)) {
    return new CliFailure(
      'unreachable',
      `cannot reach the API at ${globals.apiUrl}: is the relayer running?`,
      ExitCode.unexpected,
    );
  }
  return new CliFailure(
    'unexpected',
    error instanceof Error ? error.message : String(error),
    ExitCode.unexpected,
  );
}
