// Stalls: a stream that stops for seconds and resumes leaves the chunk-gap percentiles untouched (three
// 1.5 s stalls among thousands of 20 ms gaps are below p99). The largest gap and a count of long ones make
// them visible per request; the cell sums the counts and keeps the largest gap.
export const STALL_MIN_MS = 1000;
export const STALL_FACTOR = 10;

export interface GapSummary {
  maxGapMs: number;
  stalls: number; // gaps of at least max(STALL_MIN_MS, STALL_FACTOR x the request's median gap)
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
  const limit = Math.max(STALL_MIN_MS, STALL_FACTOR * median);
  let stalls = 0;
  for (const g of gaps) if (g >= limit) stalls++;
  return { maxGapMs: max, stalls };
}
