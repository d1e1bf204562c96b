import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.js';
import { OPTIONS, TABLE_END, TABLE_START, optionRows, withOptionTable } from '../../src/config/index.js';

// docs/cli.md's option table is generated from the option table (npm run docs:cli): it must not drift.
describe('docs/cli.md', () => {
  const doc = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');

  it('holds the table npm run docs:cli generates', () => {
    expect(doc).toContain(TABLE_START);
    expect(doc).toContain(TABLE_END);
    expect(withOptionTable(doc), 'docs/cli.md is stale: run npm run docs:cli').toBe(doc);
  });

  it('documents every option of every command, with its config key and result field', () => {
    const rows = doc
      .split('\n')
      .filter((l) => l.startsWith('| `-'))
      .map((l) => l.split(/(?<!\\)\|/).map((c) => c.trim()));
    expect(rows).toHaveLength(OPTIONS.length);
    const byFlag = new Map(rows.map((r) => [r[1], r]));
    expect(byFlag.get('`--duration <seconds>`')?.slice(2, 6)).toEqual([
      '`duration`',
      'run, plan, demo, predict, sweep, quick',
      "30, demo: 3, predict: the fitted run's, quick: sized to fill --budget, 1-10 s",
      '`config.duration`',
    ]);
    expect(byFlag.get('`--top-p <p>`')?.[5]).toBe('`config.sampling.top_p`');
    expect(byFlag.get('`--port <n>`')?.[4]).toBe('sim: 0, serve: 8321, deploy: 7070');
    expect(byFlag.get('`-o, --output <file>`')?.slice(2, 4)).toEqual([
      '(flag only)',
      'report, compare, import, fit, share',
    ]);
    expect(optionRows().map((r) => r[0])).toEqual(rows.map((r) => r[1]));
  });

  // A negated flag's default is what happens without it, not "true".
  it('gives --no-metrics and --no-ignore-eos the default a reader expects', () => {
    const cell = (flag: string) =>
      doc
        .split('\n')
        .find((l) => l.startsWith(`| \`${flag}\``))
        ?.split('|')[4]
        ?.trim();
    expect(cell('--no-metrics')).toBe('metrics on');
    expect(cell('--no-ignore-eos')).toBe('ignore-eos on');
  });

  it('lists every error code with its exit code, RESULT_INVALID for every command that reads a result', () => {
    const rows = new Map(
      doc
        .split('\n')
        .filter((l) => /^\| `[A-Z_]+` +\| \d+/.test(l))
        .map((l) => l.split('|').map((c) => c.trim()))
        .map((c) => [c[1]!.replaceAll('`', ''), { exit: Number(c[2]), when: c[3]! }]),
    );
    expect([...rows.keys()].sort()).toEqual(Object.keys(ERROR_CODES).sort());
    for (const [code, exit] of Object.entries(ERROR_CODES)) expect(rows.get(code)?.exit, code).toBe(exit);
    const when = rows.get('RESULT_INVALID')!.when;
    for (const command of ['report', 'compare', 'fit', 'import', '--resume'])
      expect(when).toContain(`\`${command}\``);
  });
});
