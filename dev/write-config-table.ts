import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { configTable } from '../workers/config';

/** `npm run docs:config`: rewrites the README's configuration table from workers/config.ts. */
const readme = resolve(__dirname, '../README.md');
const text = readFileSync(readme, 'utf8');
const updated = text.replace(
  /(<!-- config:start -->\n)[\s\S]*?(\n<!-- config:end -->)/,
  `$1${configTable()}$2`,
);
if (updated === text && !text.includes(configTable())) {
  throw new Error('README.md has no <!-- config:start --> … <!-- config:end --> block');
}
writeFileSync(readme, updated);
console.log('README.md configuration table updated');
