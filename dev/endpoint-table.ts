import { routeDocs } from '../api/route-docs';

/** The part of an OpenAPI document the endpoint table reads. */
export interface OpenApiPaths {
  paths: Record<
    string,
    Record<string, { description?: string; security?: Record<string, string[]>[] }>
  >;
}

/**
 * docs/api.md's endpoint table, one row per operation of /openapi.json: the route, the keys that
 * call it (api/route-docs.ts) with the scope its security names, and its description. The /v1
 * routes first, in the order they are registered.
 */
export function endpointTable(openapi: OpenApiPaths): string {
  const rows = Object.entries(openapi.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => {
      const route = `${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`;
      const keys = routeDocs[route]?.keys ?? 'anyone';
      const scope = operation.security?.[0]?.apiKey?.[0];
      const who = scope ? `${keys}: \`${scope}\`` : keys;
      return {
        v1: path.startsWith('/v1/'),
        row: `| \`${route}\` | ${who} | ${operation.description ?? ''} |`,
      };
    }),
  );
  return [
    '| endpoint | key: scope | what |',
    '|---|---|---|',
    ...rows.filter((row) => row.v1).map((row) => row.row),
    ...rows.filter((row) => !row.v1).map((row) => row.row),
  ].join('\n');
}
