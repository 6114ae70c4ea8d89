import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { configTable } from '../workers/config/docs-table';
import { errorTable, rejectionTable, scopeTable } from './rejection-table';
import { endpointTable } from './endpoint-table';
import { openApiDocument } from './openapi-document';

/**
 * `npm run docs:config`: rewrites the tables made from code — the configuration table of
 * docs/operations.md from the settings in workers/config/, its errors from the catalogue, the
 * refusals and the key scopes of docs/api.md from their vocabularies, its endpoints from the
 * API's OpenAPI document.
 */
function rewrite(file: string, block: string, table: string): void {
  const path = resolve(__dirname, '../docs', file);
  const text = readFileSync(path, 'utf8');
  const marks = new RegExp(`(<!-- ${block}:start -->\\n)[\\s\\S]*?(\\n<!-- ${block}:end -->)`);
  if (!marks.test(text)) {
    throw new Error(`docs/${file} has no <!-- ${block}:start --> … <!-- ${block}:end --> block`);
  }
  writeFileSync(path, text.replace(marks, `$1${table}$2`));
  console.log(`docs/${file}: ${block} table updated`);
}

rewrite('operations.md', 'config', configTable());
rewrite('operations.md', 'errors', errorTable());
rewrite('api.md', 'rejections', rejectionTable());
rewrite('api.md', 'scopes', scopeTable());
void openApiDocument().then((openapi) => rewrite('api.md', 'endpoints', endpointTable(openapi)));
