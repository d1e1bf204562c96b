import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderReport } from '../../src/report/index.js';
import { useColor } from '../../src/report/terminal.js';
import { stripAnsi } from '../../src/report/text.js';
import { syntheticResult } from './synthetic.js';
import { SEEDS, seedResult } from './seeds.js';

const golden = (name: string) => fileURLToPath(new URL(`./golden/${name}`, import.meta.url));
const width = (l: string) => [...l].length;

// UPDATE_GOLDEN=1 npx vitest run test/report/text.test.ts rewrites the golden files after a deliberate change.
function matchGolden(name: string, actual: string): void {
  if (process.env.UPDATE_GOLDEN) writeFileSync(golden(name), actual);
  expect(actual).toBe(readFileSync(golden(name), 'utf8'));
}

describe('terminal report', () => {
  for (const seed of SEEDS) {
    it(`${seed.name}: fits 80 columns, matches the golden file with ANSI stripped`, () => {
      const colored = renderReport(seedResult(seed.id), 'txt', { width: 80, color: true });
      const plain = stripAnsi(colored);
      expect(colored).toContain('\x1b[');
      for (const line of plain.split('\n')) expect(width(line), line).toBeLessThanOrEqual(80);
      expect(plain).toBe(renderReport(seedResult(seed.id), 'txt', { width: 80, color: false }));
      matchGolden(`${seed.id}.txt`, plain);
    });
  }

  it('wraps a wide matrix into column blocks instead of overflowing', () => {
    const r = syntheticResult();
    const conc = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];
    r.decode = conc.map((n) => ({ ...r.decode[0]!, concurrency: n }));
    const out = renderReport(r, 'txt', { width: 80 });
    for (const line of out.split('\n')) expect(width(line), line).toBeLessThanOrEqual(80);
    const headers = out.split('\n').filter((l) => l.startsWith('ctx '));
    expect(headers.length).toBe(2);
    expect(headers[1]).toContain('1024');
  });

  it('has no colour codes unless asked', () => {
    const out = renderReport(syntheticResult(), 'txt');
    expect(out).not.toContain('\x1b[');
    expect(out).toContain('FAILED');
    expect(out).toContain('316.7Q');
  });

  it('colour decision: FORCE_COLOR beats NO_COLOR beats TTY', () => {
    expect(useColor({ isTTY: true }, {})).toBe(true);
    expect(useColor({ isTTY: false }, {})).toBe(false);
    expect(useColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(useColor({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(useColor({ isTTY: true }, { FORCE_COLOR: '0' })).toBe(false);
    expect(useColor({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
  });
});
