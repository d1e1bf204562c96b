// The best share of a result's judged cells that ANY TTFT prediction can put within tolerance, if it only obeys
// physics a twin must: at each concurrency, a longer prompt never waits less (docs/twin.md "How good is a twin").
// Free per cell otherwise, so it bounds every model, smooth or not, fitted on any cells. Cells i ≤ j (same N,
// context i ≤ j) conflict when no one value pair fits both: lo(i) > hi(j). The largest conflict-free set is
// exact by branch and bound (a matrix row has a few dozen cells).
import { cellKey } from '../../src/cell-rules.js';
import type { RunResult } from '../../src/results/schema.js';

interface Cell {
  c: number;
  n: number;
  lo: number; // the band a prediction must fall in: measurement / (1 + tol) .. measurement × (1 + tol)
  hi: number;
}

export function monotoneTtftBound(
  measured: RunResult,
  fitted: ReadonlySet<string>,
  tolerance: number,
): { within: number; judged: number } {
  const cells: Cell[] = measured.decode
    .filter((d) => d.status === 'Valid' && d.ttftMs && !fitted.has(cellKey(d.contextTokens, d.concurrency)))
    .map((d) => ({
      c: d.contextTokens,
      n: d.concurrency,
      lo: d.ttftMs! / (1 + tolerance),
      hi: d.ttftMs! * (1 + tolerance),
    }));
  const conflict = (a: Cell, b: Cell) =>
    a.n === b.n && ((a.c < b.c && a.lo > b.hi) || (b.c < a.c && b.lo > a.hi));
  let best = 0;
  const grow = (i: number, chosen: Cell[]): void => {
    if (chosen.length + cells.length - i <= best) return;
    if (i === cells.length) {
      best = chosen.length;
      return;
    }
    const x = cells[i]!;
    if (chosen.every((y) => !conflict(x, y))) grow(i + 1, [...chosen, x]);
    grow(i + 1, chosen);
  };
  grow(0, []);
  return { within: best, judged: cells.length };
}
