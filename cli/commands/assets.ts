import { formatUnits } from 'viem/utils';
import type { Command } from 'commander';
import { apiOf, type ApiOptions } from '../api-options';
import { chainIdFlag } from '../flags';
import { print, tokenTable } from '../output';

/** The tokens intents may pay in: listed by any key, registered by an operator. */
export function addAssetCommands(program: Command, api: () => ApiOptions): void {
  const assets = program
    .command('assets')
    .description('the tokens intents may pay in, per chain (besides native)');
  assets
    .command('list')
    .description('registered tokens: alias, symbol, decimals, fee on transfer')
    .option('--chain-id <id>', 'one chain only', chainIdFlag)
    .action(async (flags: { chainId?: number }) => {
      const options = api();
      const list = await apiOf(options).tokens(flags.chainId);
      print(options, list, () => tokenTable(list));
    });
  assets
    .command('register <address>')
    .description(
      'operator: register an ERC-20 (symbol and decimals read from it, a fee on transfer probed)',
    )
    .requiredOption('--chain-id <id>', 'EVM chain id', chainIdFlag)
    .option(
      '--alias <alias>',
      "how intents name it, unique per chain (default: the token's symbol)",
    )
    .option('--fee-on-transfer', 'it takes a fee on transfer (over what the probe finds)')
    .action(
      async (
        address: string,
        flags: { chainId: number; alias?: string; feeOnTransfer?: boolean },
      ) => {
        const options = api();
        const token = await apiOf(options).registerToken({
          chainId: flags.chainId,
          address,
          ...(flags.alias !== undefined && { alias: flags.alias }),
          ...(flags.feeOnTransfer && { feeOnTransfer: true }),
        });
        print(
          options,
          token,
          () =>
            `${token.alias} (${token.symbol}, ${token.decimals} decimals) registered on chain ${token.chainId}: ` +
            `${token.feeOnTransfer ? 'takes a fee on transfer' : 'delivers in full'} (probe: ${token.probe})` +
            waitingDeposits(token),
        );
      },
    );
}

/** Deposits of the token recorded before it was registered: the operator decides on them. */
function waitingDeposits(token: {
  alias: string;
  decimals: number;
  unregisteredDeposits: { count: number; amount: string };
}): string {
  const { count, amount } = token.unregisteredDeposits;
  if (count === 0) return '';
  return (
    `\n${count} transfer(s) of it, ${formatUnits(BigInt(amount), token.decimals)} ${token.alias}, reached deposit addresses before it was registered: ` +
    'recorded unregistered and not credited (relayer deposits list --status unregistered; ' +
    'relayer deposits reconcile shows them uncredited); credit a tenant with relayer admin deposit once checked'
  );
}
