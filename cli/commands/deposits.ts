import type { Command } from 'commander';
import { depositStatuses } from '../../domain/deposit';
import { apiOf, type ApiOptions } from '../api-options';
import { badInput } from '../exit-codes';
import { chainIdFlag, wholeNumber } from '../flags';
import { print } from '../output';
import { table } from '../table';
import type { ReconciliationView } from '../api-client/deposits';
import { amountsInUnits, type AmountInUnits } from '../asset-units';

const statusFlag = (value: string) => {
  if (!(depositStatuses as readonly string[]).includes(value)) {
    throw badInput(`--status: one of ${depositStatuses.join(', ')} (got "${value}")`);
  }
  return value as (typeof depositStatuses)[number];
};

/** A tenant funds its books on chain: its deposit addresses, and what reached them. */
export function addDepositCommands(program: Command, api: () => ApiOptions): void {
  const deposits = program
    .command('deposits')
    .description("a tenant's deposit addresses, and what reached them (tenant key)");
  deposits
    .command('address')
    .description('the deposit address on a chain: send the native coin or a registered token there')
    .requiredOption('--chain-id <id>', 'EVM chain id', chainIdFlag)
    .option(
      '--index <n>',
      'another of the addresses on the chain (0, the default, is the first)',
      (value) => (value === '0' ? 0 : wholeNumber('--index', 999)(value)),
    )
    .action(async (flags: { chainId: number; index?: number }) => {
      const options = api();
      const address = await apiOf(options).depositAddress(flags);
      print(
        options,
        address,
        () => `${address.address} (chain ${address.chainId}, #${address.index})`,
      );
    });
  deposits
    .command('addresses')
    .description('every deposit address, per chain')
    .action(async () => {
      const options = api();
      const addresses = await apiOf(options).depositAddresses();
      print(options, addresses, () => {
        const rows = table(['chain', '#', 'address', 'since'], ['right', 'right', 'left', 'left']);
        for (const a of addresses)
          rows.push([String(a.chainId), String(a.index), a.address, a.createdAt]);
        return rows.toString();
      });
    });
  deposits
    .command('list')
    .description('what reached the deposit addresses, newest first')
    .option('--status <status>', depositStatuses.join(', '), statusFlag)
    .option('--limit <n>', 'at most this many (≤ 200)', wholeNumber('--limit', 200))
    .action(async (flags: { status?: (typeof depositStatuses)[number]; limit?: number }) => {
      const options = api();
      const client = apiOf(options);
      const list = await client.deposits(flags);
      const inUnits = await amountsInUnits(client);
      print(options, list, () => {
        const rows = table(
          ['id', 'chain', 'amount', 'status', 'tx', 'detected'],
          ['left', 'right', 'right', 'left', 'left', 'left'],
        );
        for (const d of list) {
          const amount = inUnits(d.chainId, d.asset, d.amount);
          rows.push([d.id, String(d.chainId), amount, d.status, d.txHash, d.detectedAt]);
        }
        return rows.toString();
      });
    });
  deposits
    .command('reconcile')
    .description(
      "compare what the chain's deposit addresses received with what the books recorded (operator key); exit 1 on a difference",
    )
    .requiredOption('--chain-id <id>', 'EVM chain id', chainIdFlag)
    .action(async (flags: { chainId: number }) => {
      const options = api();
      const client = apiOf(options);
      const report = await client.reconcileDeposits(flags.chainId);
      const inUnits = await amountsInUnits(client);
      print(options, report, () => reconciliationTable(report, inUnits));
      if (report.differences > 0) process.exitCode = 1;
    });
}

function reconciliationTable(report: ReconciliationView, inUnits: AmountInUnits): string {
  const rows = table(
    ['address', 'held', 'swept', 'credited', 'uncredited', 'pending', 'difference'],
    ['left', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
  const units = (asset: string, amount: string) => inUnits(report.chainId, asset, amount);
  for (const l of report.lines) {
    const { held, swept, credited, uncredited, pending, difference } = l;
    rows.push([
      l.address,
      ...[held, swept, credited, uncredited, pending, difference].map((v) => units(l.asset, v)),
    ]);
  }
  const books = report.books.map(
    (b) =>
      `book ${b.asset}: credited ${units(b.asset, b.credited)}, @system/deposits gave out ${units(b.asset, b.postedOut)}`,
  );
  return [
    `chain ${report.chainId} at block ${report.blockNumber}: ${report.differences} difference(s); sweeps' gas ${units('native', report.sweepGas)}`,
    rows.toString(),
    ...books,
    ...report.sweeping.map((address) => `${address}: a sweep under way, not compared`),
  ].join('\n');
}
