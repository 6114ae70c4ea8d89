import { missingSqliteFile, withBooks } from '../../service/tenants';
import { CliFailure, ExitCode } from '../exit-codes';
import { type OutputOptions } from '../output';

// The books the admin commands write to: a relayer's database, straight.

export interface DatabaseOptions extends OutputOptions {
  databaseUrl: string;
}

/** Where `npm start` keeps its relayer's books (dev/demo.ts, its default --dir). */
const demoDatabaseUrl = 'sqlite:.relayer/demo/relayer.sqlite';

/**
 * The books of an existing relayer, never a new empty database: a mistyped or unset
 * DATABASE_URL is refused with where the relayer's usually are.
 */
export function books<T>(
  databaseUrl: string,
  work: Parameters<typeof withBooks<T>>[1],
): Promise<T> {
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
