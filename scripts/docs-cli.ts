// npm run docs:cli: rewrites docs/cli.md's option table from src/config/options.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { withOptionTable } from '../src/config/docs-table.js';

const path = new URL('../docs/cli.md', import.meta.url);
const next = withOptionTable(readFileSync(path, 'utf8'));
if (next === undefined) {
  process.stderr.write('docs/cli.md has no options table markers; add them around the table first\n');
  process.exitCode = 1;
} else {
  writeFileSync(path, next);
  process.stdout.write('docs/cli.md: options table updated\n');
}
