import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { renderCompare } from '../../src/report/index.js';
import type { RunResult } from '../../src/results/schema.js';
import { syntheticResult } from './synthetic.js';

// A and a B that is 10% slower in one cell and equal elsewhere, every cell with a ±1% interval.
function withIntervals(r: RunResult, slowCell?: string): RunResult {
  const copy = structuredClone(r);
  for (const c of copy.decode) {
    if (c.totalTokensPerS === null) continue;
    if (`${c.contextTokens}x${c.concurrency}` === slowCell) c.totalTokensPerS *= 0.9;
    const v = c.totalTokensPerS;
    c.intervals = { totalTokensPerS: { lo: v * 0.99, hi: v * 1.01 } };
  }
  return copy;
}

function writeResults(a: RunResult, b: RunResult): [string, string] {
  const dir = mkdtempSync(join(tmpdir(), 'verdicts-'));
  const pa = join(dir, 'a.json');
  const pb = join(dir, 'b.json');
  writeFileSync(pa, JSON.stringify(a));
  writeFileSync(pb, JSON.stringify(b));
  return [pa, pb];
}

describe('compare verdicts', () => {
  afterEach(() => vi.restoreAllMocks());
  const a = withIntervals(syntheticResult());
  const measured = a.decode.find((c) => c.status === 'Valid' && c.totalTokensPerS)!;
  const slowKey = `${measured.contextTokens}x${measured.concurrency}`;
  const b = withIntervals(syntheticResult(), slowKey);

  it('names the slower cell with its size and interval in every format', () => {
    const txt = renderCompare([a, b], 'txt', { width: 100 });
    expect(txt).toContain('Verdicts B vs A');
    expect(txt).toMatch(/B vs A: 0 faster, 1 slower, \d+ no significant difference/);
    expect(txt).toMatch(/B is 10% ± 1% slower than A \(total tok\/s\)/);
    expect(renderCompare([a, b], 'md')).toContain('## Verdicts B vs A');
    expect(renderCompare([a, b], 'html')).toContain('B is 10% ± 1% slower than A');
  });

  it('--fail-on exits 12 listing the offending cells, and passes below the threshold', async () => {
    const [pa, pb] = writeResults(a, b);
    const err: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => (err.push(String(s)), true));
    expect(await main(['compare', pa, pb, '--fail-on', '5%'])).toBe(12);
    expect(err.join('')).toMatch(
      /error \[REGRESSION\]: 1 significant slowdown beyond 5% against A: B .+ -10% ± 1%/,
    );
    err.length = 0;
    expect(await main(['compare', pa, pb, '--fail-on', '15'])).toBe(0);
    expect(await main(['compare', pa, pb, '--fail-on', 'lots'])).toBe(2);
    expect(err.join('')).toBe(
      'error [CONFIG_INVALID]: invalid options: --fail-on: expected a percentage between 0 and 100, such as 5%\n',
    );
  });
});
