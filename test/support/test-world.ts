import { startLocalWorld, type LocalWorld, type LocalWorldOptions } from '../../stack/local-world';

export type TestWorld = LocalWorld;

/**
 * A fresh local world per test file, its workers pointed at the shared dev server. With
 * TEST_POSTGRES_URL set, its data lives in a fresh PostgreSQL database instead of SQLite.
 */
export const startTestWorld = (options: LocalWorldOptions = {}): Promise<TestWorld> =>
  startLocalWorld({
    temporalAddress: process.env.TEMPORAL_TEST_ADDRESS,
    postgresServerUrl: process.env.TEST_POSTGRES_URL || undefined,
    ...options,
  });
