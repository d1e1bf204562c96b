import { describe, expect, it } from 'vitest';
import { countCells, doneCountsText, plannedCountsText, toMeasure } from '../../src/plan/counts.js';
import { buildPlan } from '../../src/plan/plan.js';
import { emptyCell } from '../../src/results/empty-cell.js';
import type { DecodeCell } from '../../src/results/schema.js';

const K = 1024;
const ran = (ctx: number, n: number, extra: Partial<DecodeCell> = {}): DecodeCell => ({
  ...emptyCell(ctx, n, 'Valid'),
  ...extra,
});

// The plan line, the live view and the last line count cells one way.
describe('cell counts', () => {
  // The demo's matrix: 1K-8K x 1, 4, 8, 16 with max output 512 on a 64K-token cache. Over capacity by hand:
  // 16 x (4K + 512) = 73,728, 8 x (8K + 512) = 69,632 and 16 x (8K + 512) exceed 65,536; the other 13 fit.
  const demo = buildPlan({
    contexts: [K, 2 * K, 4 * K, 8 * K],
    concurrency: [1, 4, 8, 16],
    kvCapacityTokens: 65_536,
    maxOutput: 512,
  });

  it('says before and after the same numbers: 16 cells, 13 measured, 3 skipped as Over capacity', () => {
    const before = countCells(demo);
    expect(before).toEqual({ cells: 16, measure: 13, check: 0, over: 3, tooLong: 0, done: 0 });
    expect(plannedCountsText(before)).toBe('16 cells: 13 to measure, 3 skipped as Over capacity');
    const all = demo.cells.map((c) =>
      c.status === 'Over capacity'
        ? emptyCell(c.contextTokens, c.concurrency, 'Over capacity')
        : ran(c.contextTokens, c.concurrency),
    );
    const after = countCells(demo, all);
    expect(after.done).toBe(13);
    expect(doneCountsText(after)).toBe('16 cells: 13 measured, 3 skipped as Over capacity');
  });

  it('counts a resumed run\'s earlier cells as measured: "x/y" and the last line agree', () => {
    const plan = buildPlan({ contexts: [K, 2 * K], concurrency: [1, 2, 4], maxOutput: 256 });
    const earlier = [ran(K, 1), ran(K, 2)];
    const n = countCells(plan, earlier);
    expect([n.done, toMeasure(n)]).toEqual([2, 6]);
    expect(plannedCountsText(n)).toBe('6 cells: 6 to measure, 2 of them measured already');
    const left = plan.cells.slice(2).map((c) => ran(c.contextTokens, c.concurrency));
    expect(doneCountsText(countCells(plan, [...earlier, ...left]))).toBe('6 cells: 6 measured');
    // interrupted after one more: what is left is named
    expect(doneCountsText(countCells(plan, [...earlier, left[0]!]))).toBe(
      '6 cells: 3 measured, 3 not measured',
    );
  });

  it('names capacity checks (measured over a lower-bound figure) and cells too long for the server', () => {
    // llama.cpp-like lower bound 20K: 1K x 16 needs 16 x (1K + 256) = 20,480 > 20,000, the first over it is a
    // check, 1K x 32 is skipped; 32K does not fit a 16K window at all.
    const plan = buildPlan({
      maxModelLen: 16 * K,
      contexts: [K, 32 * K],
      concurrency: [1, 16, 32],
      kvCapacityTokens: 20_000,
      kvCapacityBound: 'lower-bound',
      maxOutput: 256,
    });
    const n = countCells(plan);
    expect(n).toEqual({ cells: 6, measure: 1, check: 1, over: 1, tooLong: 3, done: 0 });
    expect(plannedCountsText(n)).toBe(
      '6 cells: 2 to measure (1 a capacity check), 1 skipped as Over capacity, 3 skipped as too long for the server',
    );
  });

  it('a cell refused as too long at run time was not measured', () => {
    const plan = buildPlan({ contexts: [K, 2 * K], concurrency: [1], maxOutput: 256 });
    const refused = { ...emptyCell(2 * K, 1, 'Failed'), error: 'CONTEXT_TOO_LONG: prompt too long' };
    const failed = { ...emptyCell(K, 1, 'Failed'), error: 'no tokens arrived inside the window' };
    expect(countCells(plan, [failed, refused])).toMatchObject({ measure: 1, tooLong: 1, done: 1 });
  });
});
