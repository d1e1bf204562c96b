// Stalls: a stream that stops for seconds and resumes leaves the chunk-gap percentiles untouched (three
// 1.5 s stalls among thousands of 20 ms gaps are below p99). The largest gap and a count of long ones make
// them visible per request; the cell sums the counts and keeps the largest gap.
import { stallThresholdMs } from '../../cell-rules.js';

export interface GapSummary {
  maxGapMs: number;
  stalls: number; // gaps at or above the stall threshold of src/stats/window.ts, against this request's median
}

/** Gaps between consecutive token-bearing chunks; undefined with fewer than two chunks. */
export function gapSummary(chunks: ReadonlyArray<readonly [number, number]>): GapSummary | undefined {
  const n = chunks.length;
  if (n < 2) return undefined;
  const gaps = new Float64Array(n - 1);
  let max = 0;
  for (let i = 1; i < n; i++) {
    const g = chunks[i]![0] - chunks[i - 1]![0];
    gaps[i - 1] = g;
    if (g > max) max = g;
  }
  const sorted = gaps.slice().sort();
  const median = sorted[(sorted.length - 1) >> 1]!;
  const limit = stallThresholdMs(median);
  let stalls = 0;
  for (const g of gaps) if (g >= limit) stalls++;
  return { maxGapMs: max, stalls };
}
