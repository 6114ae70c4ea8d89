import { exitCodeOf } from '../cli/exit-codes';
import { httpStatusOf, RejectionCode, rejectionMeaning } from '../domain/rejections';

/**
 * docs/api.md's table of refusals, one row per code of the vocabulary (domain/rejections.ts), with
 * the HTTP status and the CLI's exit code from their own tables: a new code cannot go missing.
 */
export function rejectionTable(): string {
  const rows = Object.values(RejectionCode).map(
    (code) =>
      `| \`${code}\` | ${httpStatusOf(code)} | ${exitCodeOf[code]} | ${rejectionMeaning(code)} |`,
  );
  return ['| code | HTTP | CLI exit | meaning |', '|---|---|---|---|', ...rows].join('\n');
}
