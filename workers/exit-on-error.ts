import { ErrorName } from '../domain/error-catalogue';

/**
 * The name of the test stack's error for a tool it cannot find or build
 * (test/harness/stack/toolchain.ts).
 */
export const toolchainMissing = 'ToolchainMissing';

/** Problems a user fixes (a setting, a missing toolchain), told apart by name across bundles. */
const userFixable: readonly string[] = [ErrorName.invalidConfig, toolchainMissing];

/**
 * Ends a command-line process on an error: a problem the user can fix is one clear message and
 * exit code 2; anything else is a bug and keeps its stack.
 */
export function exitOnError(error: unknown): never {
  if (error instanceof Error && userFixable.includes(error.name)) {
    console.error(error.message);
    process.exit(2);
  }
  console.error(error);
  process.exit(1);
}
