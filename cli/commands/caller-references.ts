import type { Command } from 'commander';
import { apiOf, type ApiOptions } from '../api-options';
import { badInput } from '../exit-codes';
import { intentDetails, print } from '../output';

/** `--reference` and `--metadata key=value` as the submit and list commands take them. */
export interface CallerReferenceFlags {
  reference?: string;
  metadata?: Record<string, string>;
}

/** `key=value`, repeatable: the API checks the keys' and values' limits and names the field. */
const metadataFlag = (entry: string, earlier: Record<string, string> = {}) => {
  const equals = entry.indexOf('=');
  if (equals <= 0) {
    throw badInput(`--metadata must be key=value, e.g. --metadata invoice=INV-7 (got "${entry}")`);
  }
  const key = entry.slice(0, equals);
  if (key in earlier) throw badInput(`--metadata names ${key} twice`);
  return { ...earlier, [key]: entry.slice(equals + 1) };
};

/** Adds the two flags to a command: `what` says what they do there. */
export function withCallerReferenceOptions(
  command: Command,
  what: { reference: string; metadata: string },
): Command {
  return command
    .option('--reference <text>', what.reference)
    .option('--metadata <key=value>', what.metadata, metadataFlag);
}

/** The flags given, as the API's fields (none given: nothing). */
export const callerReferenceOf = ({ reference, metadata }: CallerReferenceFlags) => ({
  ...(reference !== undefined && { reference }),
  ...(metadata !== undefined && { metadata }),
});

/** `relayer redact <intentId>`: an ended intent's reference and metadata erased. */
export function addRedactCommand(program: Command, api: () => ApiOptions): void {
  program
    .command('redact <intentId>')
    .description(
      "operator key with the redact scope: erase an ended intent's reference and metadata everywhere the relayer keeps them (erasure requests)",
    )
    .option('--note <text>', 'for the audit trail (not what was erased)')
    .action(async (intentId: string, flags: { note?: string }) => {
      const options = api();
      const intent = await apiOf(options).redact(intentId, flags.note);
      print(options, intent, () => `redacted:\n${intentDetails(intent)}`);
    });
}
