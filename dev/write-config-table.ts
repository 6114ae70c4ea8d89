import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { configTable } from '../workers/config';

/** `npm run docs:config`: rewrites the configuration table of docs/operations.md from workers/config.ts. */
const readme = resolve(__dirname, '../docs/operations.md');
const text = readFileSync(readme, 'utf8');
const updated = text.replace(
  /(<!-- config:start -->\n)[\s\S]*?(\n<!-- config:end -->)/,
  `$1${configTable()}$2`,
);
if (updated === text && !text.includes(configTable())) {
  throw new Error('docs/operations.md has no <!-- config:start --> … <!-- config:end --> block');
}
writeFileSync(readme, updated);
console.log('docs/operations.md configuration table updated');
