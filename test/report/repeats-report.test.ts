import { describe, expect, it } from 'vitest';
import { mergeCellRepeats } from '../../src/bench/cell-repeats.js';
import { renderCompare, renderReport } from '../../src/report/index.js';
import type { DecodeCell, RunResult } from '../../src/results/schema.js';
import { syntheticResult } from './synthetic.js';

// A cell measured in three windows (--repeats 3) as the reports show it, and as compare judges it.
const window = (c: DecodeCell, total: number): DecodeCell => ({
  ...structuredClone(c),
  totalTokensPerS: total,
  intervals: { totalTokensPerS: { lo: total * 0.995, hi: total * 1.005 } }, // one window's own: ±0.5%
});

function withRepeats(r: RunResult, key: string, totals: number[]): { result: RunResult; cell: DecodeCell } {
  const copy = structuredClone(r);
  copy.config.repeats = totals.length;
  const i = copy.decode.findIndex((c) => `${c.contextTokens}x${c.concurrency}` === key);
  const cell = mergeCellRepeats(totals.map((t) => window(copy.decode[i]!, t)));
  copy.decode[i] = cell;
  return { result: copy, cell };
}

describe('reports of a run with --repeats', () => {
  const base = syntheticResult();
  const measured = base.decode.find((c) => c.status === 'Valid' && c.totalTokensPerS)!;
  const key = `${measured.contextTokens}x${measured.concurrency}`;

  it('says how many repeats a cell merges, on hover, in its details and in the run facts', () => {
    const { result, cell } = withRepeats(base, key, [1000, 1100, 900]);
    const html = renderReport(result, 'html');
    expect(html).toMatch(/title="[^"]*3 repeats: 1,000(\.0)? \/ 1,100(\.0)? \/ 900(\.0)? tok\/s total/);
    const at = html.indexOf(`id="detail-cell-${key}"`);
    expect(html.slice(at, html.indexOf('</section>', at))).toContain('<dt>Repeats</dt>');
    const md = renderReport(result, 'md');
    expect(md).toMatch(/Repeats per cell\W+3/);
    // the merged interval (t over the three) is what the tables show, not one window's ±0.5%
    const { lo, hi } = cell.intervals!.totalTokensPerS!;
    const pct = Math.round(((hi - lo) / 2 / 1000) * 100);
    expect(pct).toBeGreaterThan(20);
    expect(md).toMatch(new RegExp(`\\| 1,000(\\.0)? ±${pct}% \\|`));
    expect(renderReport(base, 'md')).not.toContain('Repeats per cell');
  });

  it("compare judges a cell by its merged interval, not by one window's", () => {
    const a = structuredClone(base);
    const ca = a.decode.find((c) => `${c.contextTokens}x${c.concurrency}` === key)!;
    const v = ca.totalTokensPerS!;
    ca.intervals = { totalTokensPerS: { lo: v * 0.995, hi: v * 1.005 } };
    // B 5% slower in one window: a significant slowdown
    const one = withRepeats(base, key, [v * 0.95]).result;
    expect(renderCompare([a, one], 'txt', { width: 120 })).toMatch(/B is 5% ± 1% slower than A/);
    // B 5% slower on average over three windows that disagree by ±10%: the noise between runs swallows it
    const { result: three, cell } = withRepeats(base, key, [v * 0.85, v * 1.05, v * 0.95]);
    expect(cell.totalTokensPerS).toBeCloseTo(v * 0.95, 6);
    const txt = renderCompare([a, three], 'txt', { width: 120 });
    expect(txt).not.toMatch(/slower than A/);
    expect(txt).toMatch(/B vs A: 0 faster, 0 slower/);
  });
});
