import { table } from '../cli/table';
import { ensureChromium } from '../test/harness/stack/chromium';
import { ensureJaeger } from '../test/harness/stack/jaeger';
import { ensureLocalKms } from '../test/harness/stack/local-kms';
import { ensurePostgresBinaries } from '../test/harness/stack/postgres';
import { ensureRedisServer } from '../test/harness/stack/redis';
import { ensureTemporalCli, ensureTestServer } from '../test/harness/stack/temporal-binaries';
import {
  ToolchainMissingError,
  type Progress,
  type ResolvedTool,
} from '../test/harness/stack/toolchain';

const parts: Record<string, { why: string; ensure(progress: Progress): Promise<ResolvedTool> }> = {
  temporal: {
    why: 'dev server: integration, end-to-end, fault and browser tests; npm start',
    ensure: async (progress) => {
      const cli = await ensureTemporalCli(progress);
      return {
        path: cli.executable.type === 'existing-path' ? cli.executable.path : 'SDK download',
        source: cli.source,
      };
    },
  },
  'test-server': {
    why: 'time-skipping server: workflow tests',
    ensure: async (progress) => {
      const server = await ensureTestServer(progress);
      return {
        path: server.executable.type === 'existing-path' ? server.executable.path : 'SDK download',
        source: server.source,
      };
    },
  },
  redis: { why: 'the shared RPC quota across processes', ensure: ensureRedisServer },
  postgres: { why: 'the store suites on PostgreSQL', ensure: ensurePostgresBinaries },
  'local-kms': { why: 'AWS KMS signing (secp256k1) in the signer tests', ensure: ensureLocalKms },
  chromium: { why: 'the Web UI test', ensure: ensureChromium },
  jaeger: { why: 'the trace test: one trace per intent, end to end', ensure: ensureJaeger },
};

/**
 * `npm run prepare:test-stack [part…]` (run before `npm test`): makes sure every server the tests
 * start is at hand, fetching or installing what is missing — once per machine, cached outside the
 * clone — and says where each comes from. The first run builds the Temporal CLI with Go (minutes).
 */
async function main(): Promise<void> {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((part) => !(part in parts));
  if (unknown.length > 0) {
    throw new ToolchainMissingError(
      `unknown part ${unknown.join(', ')}: choose from ${Object.keys(parts).join(', ')}`,
    );
  }
  const started = Date.now();
  const rows = table(['part', 'for', 'where', 'from'], ['left', 'left', 'left', 'left']);
  for (const name of asked.length > 0 ? asked : Object.keys(parts)) {
    const part = parts[name]!;
    const log = (message: string) => console.log(`[${name}] ${message}`);
    const tool = await part.ensure(log);
    rows.push([name, part.why, tool.path, tool.source]);
  }
  console.log(rows.toString());
  console.log(`test stack ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((error: unknown) => {
  console.error(error instanceof ToolchainMissingError ? error.message : error);
  process.exit(error instanceof ToolchainMissingError ? 2 : 1);
});
