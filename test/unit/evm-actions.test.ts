import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

// chain/evm's actions are viem's shape: `(context, parameters)`, each with its Parameters,
// ReturnType and ErrorType declared beside it, so a caller knows what it may throw.

const folder = resolve(__dirname, '../../chain/evm');
/** Exported functions that are no action on the node. */
const notActions = new Set(['createEvmContext', 'nextLookInMs']);

const actions = readdirSync(folder)
  .filter((file) => file.endsWith('.ts'))
  .flatMap((file) => {
    const source = readFileSync(join(folder, file), 'utf8');
    return [...source.matchAll(/^export (?:async )?function (\w+)\(([^)]*)\)/gms)]
      .filter(([, name]) => !notActions.has(name!))
      .map(([, name, parameters]) => ({ file, source, name: name!, parameters: parameters! }));
  });

describe('chain/evm actions', () => {
  it('are found', () => {
    expect(actions.length).toBeGreaterThan(15);
  });

  it.each(actions.map((action) => [action.name, action]))(
    '%s takes the context and one parameters object, its three types declared',
    (_, { source, name, parameters }) => {
      const type = name[0]!.toUpperCase() + name.slice(1);
      const declared = (suffix: string) =>
        new RegExp(`^export type ${type}${suffix}\\b`, 'm').test(source);
      const args = parameters.split(/,\s*\n?(?![^{]*})/).filter((arg) => arg.trim() !== '');
      expect(args.length).toBeLessThanOrEqual(2);
      expect(args[0]).toMatch(/EvmContext/);
      if (args.length === 2) {
        expect(args[1]).toMatch(new RegExp(`: ${type}Parameters\\b`));
        expect(declared('Parameters')).toBe(true);
      }
      expect(declared('ReturnType')).toBe(true);
      expect(declared('ErrorType')).toBe(true);
    },
  );
});
