import type * as bookServices from './book-services';
import { CliFailure, ExitCode } from '../exit-codes';
import { type OutputOptions } from '../output';

// The books the admin commands write to: a relayer's database, straight.

export interface DatabaseOptions extends OutputOptions {
  databaseUrl: string;
}

/** Where `npm start` keeps its relayer's books (dev/demo.ts, its default --dir). */
const demoDatabaseUrl = 'sqlite:.relayer/demo/relayer.sqlite';

export type BookServices = typeof bookServices;
/** A relayer's books as the services take them. */
type Books = Parameters<Parameters<BookServices['withBooks']>[1]>[0];

/**
 * The books of an existing relayer, never a new empty database: a mistyped or unset
 * DATABASE_URL is refused with where the relayer's usually are. `work` gets the services that
 * write them, loaded now.
 */
export async function books<T>(
  databaseUrl: string,
  work: (database: Books, services: BookServices) => Promise<T>,
): Promise<T> {
  const services = await import('./book-services');
  const missing = services.missingSqliteFile(databaseUrl);
  if (missing !== undefined) {
    throw new CliFailure(
      'no_database',
      `no relayer database at ${missing}: set DATABASE_URL to the relayer's ` +
        `(the demo's: ${demoDatabaseUrl}); a relayer creates its own when it first starts`,
      ExitCode.badInput,
    );
  }
  return services.withBooks(databaseUrl, (database) => work(database, services));
}
