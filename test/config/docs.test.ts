import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPTIONS } from '../../src/config/index.js';

// docs/cli.md's option table is generated from OPTIONS: it must not drift.
describe('docs/cli.md', () => {
  const doc = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
  it('documents every option with its config key and default', () => {
    for (const o of OPTIONS) {
      const row = doc.split('\n').find((l) => l.startsWith(`| \`${o.flag}\` |`));
      expect(row, o.flag).toBeDefined();
      if (o.configFile) expect(row).toContain(`\`${o.key}\``);
      if (o.defaultValue !== undefined) expect(row).toContain(`| ${String(o.defaultValue)} |`);
    }
  });
});
