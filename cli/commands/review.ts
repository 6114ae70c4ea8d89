import type { Command } from 'commander';
import { apiOf, type ApiOptions } from '../api-options';
import { intentDetails, intentTable, print } from '../output';
import { showAudit } from './intents';

/** An operator's review of intents in needs_review. */
export function addReviewCommands(program: Command, api: () => ApiOptions): void {
  const review = program
    .command('review')
    .description('operator: resolve intents in needs_review (checked on-chain, audited)');
  review
    .command('list')
    .description('intents waiting for a person')
    .action(async () => {
      const options = api();
      const { intents } = await apiOf(options).list({ status: 'needs_review', limit: 200 });
      print(options, intents, () => `${intentTable(intents)}\n${intents.length} in review`);
    });
  review
    .command('confirm <intentId>')
    .description('the given transaction paid it')
    .requiredOption('--tx-hash <hash>', 'the transaction that paid it')
    .option('--note <text>', 'for the audit log')
    .action(async (intentId: string, flags: { txHash: string; note?: string }) => {
      const options = api();
      const intent = await apiOf(options).review(intentId, 'confirm', flags);
      print(options, intent, () => intentDetails(intent));
    });
  review
    .command('fail <intentId>')
    .description('it did not pay and cannot: release the hold')
    .requiredOption('--reason <text>', 'why (kept in the intent and the audit log)')
    .action(async (intentId: string, flags: { reason: string }) => {
      const options = api();
      const intent = await apiOf(options).review(intentId, 'fail', flags);
      print(options, intent, () => intentDetails(intent));
    });
  review
    .command('retry <intentId>')
    .description('send the same signed transaction again and follow it')
    .option('--note <text>', 'for the audit log')
    .action(async (intentId: string, flags: { note?: string }) => {
      const options = api();
      const intent = await apiOf(options).review(intentId, 'retry', flags);
      print(options, intent, () => intentDetails(intent));
    });
  review
    .command('cancel <intentId>')
    .description(
      'take the nonce back: a zero-value transfer to the wallet itself at the same nonce; the intent fails once it is mined',
    )
    .option('--note <text>', 'for the audit log')
    .action(async (intentId: string, flags: { note?: string }) => {
      const options = api();
      const intent = await apiOf(options).review(intentId, 'cancel', flags);
      print(options, intent, () => intentDetails(intent));
    });
  review
    .command('audit <intentId>')
    .description('who did what to an intent (also: relayer audit)')
    .action(showAudit(api));
}
