import { exitCodeOf } from '../cli/exit-codes';
import { apiScopes, operatorKeyScopes, scopeMeaning, tenantKeyScopes } from '../domain/api-scopes';
import { errorCatalogue, rejectionCodeOf, type ErrorName } from '../domain/error-catalogue';
import { errorSummaries } from '../domain/error-summaries';
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

/**
 * docs/operations.md's table of the errors a step or a request fails with (the Temporal failure
 * type an operator sees), one row per entry of the catalogue (domain/error-catalogue.ts).
 */
export function errorTable(): string {
  const rows = (Object.keys(errorCatalogue) as ErrorName[]).map((type) => {
    const code = rejectionCodeOf(type);
    const answer = code ? `\`${code}\` ${httpStatusOf(code)}` : '–';
    const retried = errorCatalogue[type].retryable ? 'yes' : 'no';
    return `| \`${type}\` | ${retried} | ${answer} | ${errorSummaries[type]} |`;
  });
  return [
    '| error | a step retries it | API answer | what it means |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** docs/api.md's table of API key scopes (domain/api-scopes.ts): which keys may hold each. */
export function scopeTable(): string {
  const holds = (scopes: readonly string[], scope: string) =>
    scopes.includes(scope) ? 'yes' : '–';
  const rows = apiScopes.map(
    (scope) =>
      `| \`${scope}\` | ${holds(tenantKeyScopes, scope)} | ${holds(operatorKeyScopes, scope)} | ${scopeMeaning[scope]} |`,
  );
  return [
    '| scope | a tenant key | an operator key | lets it |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
}
