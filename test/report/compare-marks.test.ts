import { describe, expect, it } from 'vitest';
import { emptyCell } from '../../src/results/empty-cell.js';
import { missingReason } from '../../src/report/compare-model.js';
import { renderCompare } from '../../src/report/index.js';
import { SEEDS, seedResult } from './seeds.js';

const rtx = () => seedResult(SEEDS[0].id);
const h200 = () => seedResult(SEEDS[1].id);

// Compare's labels and marks.
describe('compare marks', () => {
  it('a cell A skipped as Over capacity is "A over cap.", not "only A"', () => {
    const over = emptyCell(1_044_480, 4, 'Over capacity');
    expect(missingReason(over, undefined, 'A', 'B')).toBe('A over cap.');
    expect(missingReason(undefined, over, 'A', 'B')).toBe('B over cap.');
    const valid = { ...emptyCell(8192, 1, 'Valid'), totalTokensPerS: 100 };
    expect(missingReason(valid, undefined, 'A', 'B')).toBe('only A');
  });

  it('the txt and md ratio matrices keep the queued mark', () => {
    const txt = renderCompare([rtx(), h200()], 'txt', { width: 100 });
    // 8K x 64 is Requests queued in B (the H200 seed).
    const row8k = txt.split('\n').find((l) => /^8K\s+1\.\d\d×/.test(l))!;
    expect(row8k.trim().split(/\s+/)[7]).toMatch(/×Q$/);
    expect(txt).toContain('Q: requests queued in A, B or both.');
    const md = renderCompare([rtx(), h200()], 'md');
    expect(md).toContain('2,793.5<br>⚠ queued in B |');
  });

  it('in the HTML side-by-side matrices the queued badge and the "!" share one row of marks', () => {
    const html = renderCompare([rtx(), h200()], 'html');
    const both = [...html.matchAll(/<span class="hm-marks">(.*?)<\/span><span class="hm-v">/g)].filter(
      (m) => m[1]!.includes('hm-badge') && m[1]!.includes('hm-flag'),
    );
    expect(both.length).toBeGreaterThan(0);
    expect(html).toMatch(/\.hm-marks\{position:absolute;left:4px;right:4px;top:3px;display:flex/);
    expect(html).toContain('.hm-marks .hm-flag{position:static;flex:none;margin-left:auto}');
    expect(html).not.toMatch(/<\/span><span class="hm-flag"[^>]*>!<\/span><span class="hm-badge">/);
  });
});
