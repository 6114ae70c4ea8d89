import { ToolchainMissingError } from '../dev/stack/temporal-binaries';
import { ConfigError } from './config';

/**
 * Ends a command-line process on an error: a problem the user can fix (configuration, a missing
 * toolchain) is one clear message and exit code 2; anything else is a bug and keeps its stack.
 */
export function exitOnError(error: unknown): never {
  if (error instanceof ConfigError || error instanceof ToolchainMissingError) {
    console.error(error.message);
    process.exit(2);
  }
  console.error(error);
  process.exit(1);
}
