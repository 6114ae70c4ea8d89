import type { Command } from 'commander';
import { apiOf, type ApiOptions } from '../api-options';
import type { PauseView } from '../api-client/pauses';
import { pauseSubject } from '../../domain/pause';
import { badInput } from '../exit-codes';
import { chainIdFlag, tenantIdFlag } from '../flags';
import { print } from '../output';
import { table } from '../table';

function pauseTable(pauses: readonly PauseView[]): string {
  const rows = table(
    ['id', 'paused', 'since', 'by', 'admission', 'note', 'resumed'],
    ['left', 'left', 'left', 'left', 'left', 'left', 'left'],
  );
  for (const pause of pauses) {
    rows.push([
      pause.id,
      pauseSubject(pause),
      pause.pausedAt,
      pause.pausedBy,
      pause.refuseAdmission ? 'refused' : 'admitted, waiting',
      pause.note,
      pause.resumedAt ? `${pause.resumedAt} by ${pause.resumedBy}` : '',
    ]);
  }
  return rows.toString();
}

/** An operator's emergency stop of the relayer, a tenant or a chain, and its resume. */
export function addPauseCommands(program: Command, api: () => ApiOptions): void {
  program
    .command('pause')
    .description(
      'operator (review scope): stop the relayer, a tenant or a chain: nothing new in it takes a permit until resumed',
    )
    .option('--all', 'the whole relayer')
    .option('--tenant <id>', 'one tenant', tenantIdFlag)
    .option('--chain-id <id>', 'one chain', chainIdFlag)
    .requiredOption('--note <text>', 'why, for whoever resumes it')
    .option(
      '--refuse-admission',
      'refuse new intents (503 paused) instead of admitting them to wait',
    )
    .action(
      async (flags: {
        all?: boolean;
        tenant?: string;
        chainId?: number;
        note: string;
        refuseAdmission?: boolean;
      }) => {
        const chosen = [flags.all, flags.tenant, flags.chainId].filter((f) => f !== undefined);
        if (chosen.length !== 1)
          throw badInput('pause: give exactly one of --all, --tenant, --chain-id');
        const options = api();
        const scope = flags.all ? 'relayer' : flags.tenant !== undefined ? 'tenant' : 'chain';
        const { status, body } = await apiOf(options).pause({
          scope,
          ...(flags.tenant !== undefined && { tenantId: flags.tenant }),
          ...(flags.chainId !== undefined && { chainId: flags.chainId }),
          note: flags.note,
          ...(flags.refuseAdmission && { refuseAdmission: true }),
        });
        print(options, body, () =>
          status === 201
            ? `paused ${pauseSubject(body)} (${body.id}${body.refuseAdmission ? ', refusing new intents' : ''}${body.replaces ? `, replacing ${body.replaces}` : ''}); resume it with: relayer resume ${body.id}`
            : `${pauseSubject(body)} was paused already on these terms (${body.id}, since ${body.pausedAt}: ${body.note})`,
        );
      },
    );
  program
    .command('resume <pauseId>')
    .description('operator: end a pause; the intents it held ask for their permits, oldest first')
    .option('--note <text>', 'why it is resumed')
    .action(async (pauseId: string, flags: { note?: string }) => {
      const options = api();
      const pause = await apiOf(options).resume(pauseId, flags.note);
      print(options, pause, () => `resumed ${pauseSubject(pause)} (${pause.id})`);
    });
  program
    .command('pauses')
    .description('operator: the pauses in force')
    .option('--all', 'with the resumed ones, newest first')
    .action(async (flags: { all?: boolean }) => {
      const options = api();
      const pauses = await apiOf(options).pauses(flags.all === true);
      print(options, pauses, () =>
        pauses.length === 0 ? 'nothing is paused' : pauseTable(pauses),
      );
    });
}
