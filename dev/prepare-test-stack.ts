import {
  ensureTemporalCli,
  ensureTestServer,
  ToolchainMissingError,
} from './stack/temporal-binaries';

/**
 * `npm run prepare:temporal` (also run before `npm test`): makes sure both Temporal servers are
 * at hand before anything needs them, printing where each comes from. The first run on a machine
 * builds the CLI with Go (minutes); later runs find it in the cache at once.
 */
async function main(): Promise<void> {
  const started = Date.now();
  const log = (message: string) => console.log(`[temporal] ${message}`);
  const cli = await ensureTemporalCli(log);
  const testServer = await ensureTestServer(log);
  for (const [name, binary] of [
    ['CLI (dev server)', cli],
    ['time-skipping test server', testServer],
  ] as const) {
    const where =
      binary.executable.type === 'existing-path' ? binary.executable.path : 'SDK download';
    log(`${name}: ${where} (${binary.source})`);
  }
  log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((error: unknown) => {
  console.error(error instanceof ToolchainMissingError ? `[temporal] ${error.message}` : error);
  process.exit(1);
});
