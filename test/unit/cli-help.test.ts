import { RelayerCommand } from '../../cli/relayer-command';

describe("the CLI's help", () => {
  it('says which options a command cannot run without, and no others', () => {
    const command = new RelayerCommand('relayer')
      .command('allow')
      .requiredOption('--label <text>', 'what it is for')
      .option('--note <text>', 'why');
    const help = command.helpInformation();
    expect(help).toMatch(/--label <text>\s+what it is for \(required\)/);
    expect(help).toMatch(/--note <text>\s+why\n/);
  });
});
