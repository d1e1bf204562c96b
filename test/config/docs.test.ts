import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPTIONS } from '../../src/config/index.js';

// docs/cli.md's option table is generated from OPTIONS: it must not drift.
describe('docs/cli.md', () => {
  const rows = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('|'))
    .map((l) => l.split(/(?<!\\)\|/).map((c) => c.trim()));
  it('documents every option with its config key, commands and default', () => {
    for (const o of OPTIONS) {
      const row = rows.find((r) => r[1] === `\`${o.flag}\``);
      expect(row, o.flag).toBeDefined();
      expect(row![2]).toBe(o.configFile ? `\`${o.key}\`` : '(flag only)');
      expect(row![3]).toBe(o.commands.join(', '));
      expect(row![4]).toBe(o.defaultValue === undefined ? '' : String(o.defaultValue));
    }
  });
});
