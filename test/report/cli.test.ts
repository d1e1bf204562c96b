import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseResult } from '../../src/results/schema.js';
import { runCliInProcess } from '../helpers/cli.js';
import { SEEDS, seedMeasurementLines } from './seeds.js';

const seedTxt = (id: string) => new URL(`../fixtures/seeds/${id}.txt`, import.meta.url).pathname;

// The real CLI, run from source: import → report → compare, and the one-line errors.
describe('report, import and compare commands', () => {
  const dir = mkdtempSync(join(tmpdir(), 'llm-bench-report-'));

  it('import each seed, then report --format md shows every "All measurements" figure as the seed prints it', async () => {
    for (const seed of SEEDS) {
      const out = join(dir, `${seed.id}.json`);
      const imp = await runCliInProcess(['import', seedTxt(seed.id), '-o', out]);
      expect(imp.stderr).toContain(`wrote ${out}`);
      expect(imp.code).toBe(0);
      expect(parseResult(JSON.parse(readFileSync(out, 'utf8'))).status).toBe('imported');
      const md = await runCliInProcess(['report', out, '--format', 'md']);
      expect(md.code).toBe(0);
      for (const line of seedMeasurementLines(seed.id)) expect(md.stdout).toContain(line);
    }
  });

  it('txt to stdout at 80 columns without colour when not a TTY; FORCE_COLOR turns colour on', async () => {
    const file = join(dir, `${SEEDS[1].id}.json`);
    const plain = await runCliInProcess(['report', file]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).not.toContain('\x1b[');
    expect(plain.stdout).toContain('Sustained decode · total tok/s and TTFT');
    for (const l of plain.stdout.split('\n')) expect([...l].length).toBeLessThanOrEqual(80);
    const colored = await runCliInProcess(['report', file], { env: { NO_COLOR: '', FORCE_COLOR: '1' } });
    expect(colored.stdout).toContain('\x1b[1m');
  });

  it('html goes to report.html beside the result; csv and json to -o or stdout', async () => {
    const file = join(dir, `${SEEDS[0].id}.json`);
    const html = await runCliInProcess(['report', file, '--format', 'html']);
    expect(html.code).toBe(0);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('<!doctype html>');
    const csv = await runCliInProcess(['report', file, '--format', 'csv', '-o', join(dir, 'r.csv')]);
    expect(csv.code).toBe(0);
    expect(readFileSync(join(dir, 'r.csv'), 'utf8').split('\r\n')).toHaveLength(1 + 9 + 64 + 1);
    const json = await runCliInProcess(['report', seedTxt(SEEDS[0].id), '--format', 'json']);
    expect(parseResult(JSON.parse(json.stdout)).decode).toHaveLength(64);
  });

  it('compare of the two imported seeds prints the B/A ratio per cell', async () => {
    const a = join(dir, `${SEEDS[0].id}.json`);
    const b = join(dir, `${SEEDS[1].id}.json`);
    const res = await runCliInProcess(['compare', a, b, '--format', 'md']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('## Total tok/s ratio B/A');
    expect(res.stdout).toContain('**1.63×**<br>108.1 → 175.8');
    const html = await runCliInProcess([
      'compare',
      a,
      b,
      '--format',
      'html',
      '-o',
      join(dir, 'compare.html'),
    ]);
    expect(html.code).toBe(0);
    expect(existsSync(join(dir, 'compare.html'))).toBe(true);
  });

  const badCases: Array<[string, string[], number, string]> = [
    ['missing file', ['report', 'missing.json'], 8, 'RESULT_INVALID'],
    ['invalid result', ['report', 'bad.json'], 8, 'RESULT_INVALID'],
    ['unknown format', ['report', `${SEEDS[0].id}.json`, '--format', 'pdf'], 2, 'USAGE'],
    ['import of something else', ['import', 'notjson.txt'], 8, 'RESULT_INVALID'],
  ];
  it.each(badCases)('bad input is one line with a stable code: %s', async (_name, args, code, name) => {
    writeFileSync(join(dir, 'bad.json'), '{"schema": "nope"}');
    writeFileSync(join(dir, 'notjson.txt'), 'hello');
    const res = await runCliInProcess(args.map((a, i) => (i === 1 ? join(dir, a) : a)));
    expect(res.code, args.join(' ')).toBe(code);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toContain(`[${name}]`);
    expect(res.stderr).not.toMatch(/at .*\.ts:\d+/);
  });
});
