// tsc writes dist/cli/main.js without the executable bit; `npx llm-inference-bench` in a clone runs the bin
// directly (not through node), so without it every pasted hint fails with "Permission denied".
import { chmodSync, readFileSync } from 'node:fs';
import { URL } from 'node:url';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
for (const bin of Object.values(pkg.bin)) chmodSync(new URL(`../${bin}`, import.meta.url), 0o755);
