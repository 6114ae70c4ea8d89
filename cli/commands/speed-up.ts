import type { Command } from 'commander';
import { formatGwei } from 'viem/utils';
import { apiOf, type ApiOptions } from '../api-options';
import { gweiFlag } from '../flags';
import { intentDetails, print } from '../output';

/** `speed-up`: a payment sent but not mined signed again at its nonce with a higher bid. */
export function addSpeedUpCommand(program: Command, api: () => ApiOptions): void {
  program
    .command('speed-up <intentId>')
    .description(
      'speed up a payment sent but not mined: signed again at its nonce with a higher bid, within the fee caps',
    )
    .option('--max-fee-gwei <gwei>', 'the least max fee per gas to bid', gweiFlag('--max-fee-gwei'))
    .option(
      '--tip-gwei <gwei>',
      'the least priority fee (tip) per gas to bid',
      gweiFlag('--tip-gwei'),
    )
    .option('--note <text>', 'for the audit log')
    .action(
      async (intentId: string, flags: { maxFeeGwei?: bigint; tipGwei?: bigint; note?: string }) => {
        const options = api();
        const intent = await apiOf(options).speedUp(intentId, {
          ...(flags.maxFeeGwei && { maxFeePerGas: flags.maxFeeGwei.toString() }),
          ...(flags.tipGwei && { maxPriorityFeePerGas: flags.tipGwei.toString() }),
          ...(flags.note && { note: flags.note }),
        });
        const attempts = await apiOf(options).attempts(intentId);
        const latest = attempts.at(-1);
        print(
          options,
          intent,
          () =>
            `sped up: ${intent.txHash} replaces it at nonce ${intent.nonce}` +
            (latest ? `, bidding ${formatGwei(BigInt(latest.maxFeePerGas))} gwei` : '') +
            `\nfollow it: relayer status ${intent.id} --wait\n${intentDetails(intent)}`,
        );
      },
    );
}
