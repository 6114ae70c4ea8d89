import { Command, Help, type ErrorOptions, type Option } from 'commander';

/** commander's help, saying which options a command cannot run without. */
class RelayerHelp extends Help {
  override optionDescription(option: Option): string {
    const description = super.optionDescription(option);
    return option.mandatory ? `${description} (required)` : description;
  }
}

/** commander's own unknown-flag report (with its "Did you mean"), left out of its declarations. */
interface ReportsUnknownFlags {
  unknownOption(flag: string): never;
}

/**
 * commander's Command with the CLI's manners on a usage error: an unknown flag is named even when
 * a required one is missing too (commander checks required options first, so `--chainid 1` read
 * "required option '--chain-id <id>' not specified"), and the error ends with the command's one
 * usage line and where the rest is, not the whole help.
 */
export class RelayerCommand extends Command {
  override createCommand(name?: string): RelayerCommand {
    return new RelayerCommand(name);
  }

  override createHelp(): Help {
    return Object.assign(new RelayerHelp(), this.configureHelp());
  }

  override error(message: string, errorOptions?: ErrorOptions): never {
    if (errorOptions?.code === 'commander.missingMandatoryOptionValue') {
      // Operands come first; from the first flag commander did not know on, the rest is unknown.
      const unknownFlag = this.args.find((arg) => arg.startsWith('-'));
      if (unknownFlag) (this as unknown as ReportsUnknownFlags).unknownOption(unknownFlag);
    }
    const path = commandPath(this);
    return super.error(
      `${message}\nusage: ${path} ${this.usage()}\nsee: ${path} --help`,
      errorOptions,
    );
  }
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}
