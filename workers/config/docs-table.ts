import type { Setting } from './parsers';
import { settings } from './settings';
import { fileVariableOf } from './secret-files';

/** The configuration table of the README. */
export function configTable(): string {
  const shown = (s: Setting<unknown>) =>
    s.requiredBy
      ? `*(required by the ${s.requiredBy} process)*`
      : s.fallback === undefined
        ? '*(required)*'
        : s.fallback === ''
          ? '*(unset)*'
          : `\`${s.fallback}\``;
  const fromFile = (s: Setting<unknown>) => {
    const variable = fileVariableOf(s);
    return variable ? ` (or from a file: \`${variable}\`)` : '';
  };
  const rows = Object.values(settings).map(
    (s: Setting<unknown>) => `| \`${s.env}\` | ${shown(s)} | ${s.doc}${fromFile(s)} |`,
  );
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}
