import type { Command } from 'commander';
import { apiOf, type ApiOptions } from '../api-options';
import { chainIdFlag } from '../flags';
import { badInput } from '../exit-codes';
import { print, walletTable } from '../output';

/** An operator's hot wallets: their standing, wallets added by signers, a tenant's pool. */
export function addWalletCommands(program: Command, api: () => ApiOptions): void {
  const wallets = program.command('wallets').description('operator: the hot wallets');
  wallets
    .command('list')
    .description('balance, nonces in flight, blocked by an intent in review, low, retired')
    .action(async () => {
      const options = api();
      const list = await apiOf(options).wallets();
      print(options, list, () => walletTable(list));
    });
  wallets
    .command('add <address>')
    .description('add a hot wallet by the signer holding its key: every worker takes it on')
    .requiredOption('--signer <signer>', 'kms:<key id, ARN or alias> or remote:<http(s) URL>')
    .action(async (address: string, flags: { signer: string }) => {
      const options = api();
      const added = await apiOf(options).addWallet(address, flags.signer);
      print(options, added, () => `${added.address} added (${added.signer})`);
    });
  for (const [action, retired, what] of [
    ['retire', true, 'it signs nothing new and finishes what it has'],
    ['activate', false, 'a retired wallet signs again'],
  ] as const) {
    wallets
      .command(`${action} <address>`)
      .description(what)
      .requiredOption('--chain-id <id>', 'EVM chain id', chainIdFlag)
      .action(async (address: string, flags: { chainId: number }) => {
        const options = api();
        await apiOf(options).retireWallet(flags.chainId, address, retired);
        print(options, { chainId: flags.chainId, address, retired }, () =>
          retired ? `${address} retired` : `${address} signs again`,
        );
      });
  }
  wallets
    .command('pool <tenant>')
    .description("the hot wallets a tenant's intents may be sent from on a chain")
    .requiredOption('--chain-id <id>', 'EVM chain id', chainIdFlag)
    .option('--wallets <addresses>', 'comma-separated addresses')
    .option('--all', 'every wallet of the relayer (the default)')
    .action(
      async (tenantId: string, flags: { chainId: number; wallets?: string; all?: boolean }) => {
        if ((flags.wallets === undefined) === (flags.all === undefined)) {
          throw badInput('give --wallets a,b,… or --all');
        }
        const pool = flags.wallets?.split(',').map((address) => address.trim()) ?? null;
        const options = api();
        await apiOf(options).setWalletPool(tenantId, flags.chainId, pool);
        print(options, { tenantId, chainId: flags.chainId, wallets: pool }, () =>
          pool === null
            ? `${tenantId} sends from every wallet on chain ${flags.chainId}`
            : `${tenantId} sends from ${pool.join(', ')} on chain ${flags.chainId}`,
        );
      },
    );
}
