import { Option } from 'commander';
import { apiOf } from './api-options';
import { addAdminCommands } from './commands/admin';
import { addPauseCommands } from './commands/pauses';
import { addScheduleCommands } from './commands/schedules';
import { addAssetCommands } from './commands/assets';
import { addDepositCommands } from './commands/deposits';
import { addBatchCommands } from './commands/batches';
import { addIntentCommands } from './commands/intents';
import { addRedactCommand } from './commands/caller-references';
import { addReviewCommands } from './commands/review';
import { addWalletCommands } from './commands/wallets';
import { addContractCallCommands } from './commands/contract-calls';
import { addPolicyCommands } from './commands/policies';
import { addWebhookCommands } from './commands/webhooks';
import { RelayerCommand } from './relayer-command';

export interface RelayerGlobals {
  apiUrl: string;
  apiKey?: string;
  databaseUrl: string;
  json?: boolean;
}

/**
 * `npm run relayer -- <command>`: intents through the HTTP API, tenants and keys straight in the
 * database. `--json` prints machine-readable results (and errors, on stderr); the exit status
 * says how it went (cli/exit-codes.ts). Built here, run by cli/relayer.ts, so a test can walk its
 * commands.
 */
export function relayerProgram(): RelayerCommand {
  const program = new RelayerCommand('relayer')
    .description('payment relayer: submit and follow intents, review them, manage tenants and keys')
    // From the environment without echoing it: help must never print a key or a password.
    .addOption(
      new Option('--api-url <url>', 'the relayer API')
        .env('RELAYER_API_URL')
        .default('http://127.0.0.1:8080'),
    )
    .addOption(new Option('--api-key <key>', 'tenant or operator key').env('RELAYER_API_KEY'))
    .addOption(
      new Option('--database-url <url>', 'for tenants and keys')
        .env('DATABASE_URL')
        .default('sqlite:.relayer/relayer.sqlite'),
    )
    .option('--json', 'machine-readable output')
    .exitOverride();
  const globals = () => program.opts<RelayerGlobals>();
  addIntentCommands(program, globals);
  addRedactCommand(program, globals);
  addWalletCommands(program, globals);
  addAssetCommands(program, globals);
  addDepositCommands(program, globals);
  addWebhookCommands(program, globals);
  addReviewCommands(program, globals);
  addPolicyCommands(program, globals);
  addContractCallCommands(program, globals);
  addBatchCommands(program, () => ({ ...globals(), api: () => apiOf(globals()) }));
  addAdminCommands(program, globals);
  addPauseCommands(program, globals);
  addScheduleCommands(program, globals);
  return program;
}
