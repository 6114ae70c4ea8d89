import type { Command } from 'commander';
import { formatUnits } from 'viem/utils';
import { nativeUnits } from '../../domain/asset';
import { apiOf, type ApiOptions } from '../api-options';
import { baseUnits, chainIdFlag } from '../flags';
import { print } from '../output';
import { table } from '../table';

/** `relayer calls …`: the contract functions a tenant's intents may call (operator sets). */
export function addContractCallCommands(program: Command, api: () => ApiOptions): void {
  const calls = program
    .command('calls')
    .description("the contract functions a tenant's intents may call (operator sets)");
  addListCallCommand(calls, api);
  addAllowCallCommand(calls, api);
  addRemoveCallCommand(calls, api);
}

function addListCallCommand(calls: Command, api: () => ApiOptions): void {
  calls
    .command('list <tenant>')
    .option('--chain-id <id>', 'one chain only', chainIdFlag)
    .action(async (tenantId: string, flags: { chainId?: number }) => {
      const options = api();
      const list = await apiOf(options).allowedCalls(tenantId, flags.chainId);
      print(options, list, () => {
        const rows = table(
          ['chain', 'contract', 'function', 'most value (ETH)', 'label'],
          ['right', 'left', 'left', 'right', 'left'],
        );
        for (const call of list) {
          rows.push([
            call.chainId,
            call.contract,
            call.signature ? `${call.signature} (${call.selector})` : call.selector,
            call.maxValue === null ? '—' : formatUnits(BigInt(call.maxValue), 18),
            call.label,
          ]);
        }
        return rows.toString();
      });
    });
}

function addAllowCallCommand(calls: Command, api: () => ApiOptions): void {
  calls
    .command('allow <tenant> <contract>')
    .description('allow one function of a contract, e.g. --function "deposit(bytes32)"')
    .requiredOption('--chain-id <id>', 'EVM chain id', chainIdFlag)
    .requiredOption('--function <signature>', 'its signature, or its 4-byte selector (0x…)')
    .requiredOption('--label <text>', 'what the call is for')
    .option(
      '--max-value <ether>',
      "the most one call may send, in the chain's native coin (ether, not wei; 0: nothing; none: no bound but the limits; left out: the bound it had)",
    )
    .option(
      '--allow-no-code',
      'admit calls while the contract has no code on the chain (it is deployed later); without it such calls are refused',
    )
    .action(
      async (
        tenantId: string,
        contract: string,
        flags: {
          chainId: number;
          function: string;
          label: string;
          maxValue?: string;
          allowNoCode?: true;
        },
      ) => {
        const options = api();
        const maxValue = baseUnits('--max-value', flags.maxValue, nativeUnits.decimals, true);
        const allowed = await apiOf(options).allowCall(tenantId, {
          chainId: flags.chainId,
          contract,
          function: flags.function,
          label: flags.label,
          ...(maxValue !== undefined && { maxValue }),
          ...(flags.allowNoCode && { allowNoCode: true }),
        });
        if (allowed.targetHasCode === false && !allowed.allowNoCode) {
          console.error(
            `warning: ${allowed.contract} has no code on chain ${allowed.chainId}: calls to it are refused until it has (a mistyped address, or the contract is on another chain?); --allow-no-code admits them for a contract deployed later`,
          );
        }
        print(
          options,
          allowed,
          () =>
            `${tenantId} may call ${allowed.signature ?? allowed.selector} of ${allowed.contract} on chain ${allowed.chainId}`,
        );
      },
    );
}

function addRemoveCallCommand(calls: Command, api: () => ApiOptions): void {
  calls
    .command('remove <tenant> <contract>')
    .description('no longer allow a function of a contract')
    .requiredOption('--chain-id <id>', 'EVM chain id', chainIdFlag)
    .requiredOption('--function <signature>', 'its signature, or its 4-byte selector (0x…)')
    .action(
      async (tenantId: string, contract: string, flags: { chainId: number; function: string }) => {
        const options = api();
        await apiOf(options).disallowCall(tenantId, {
          chainId: flags.chainId,
          contract,
          function: flags.function,
        });
        print(
          options,
          { tenantId, chainId: flags.chainId, contract, function: flags.function, removed: true },
          () => `${tenantId} may no longer call ${flags.function} of ${contract}`,
        );
      },
    );
}
