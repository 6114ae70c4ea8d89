/** Set up by the PostgreSQL project: this test file's worlds keep their data on PostgreSQL. */
(globalThis as { __relayerTestStore?: string }).__relayerTestStore = 'postgres';
