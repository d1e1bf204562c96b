// A sorted-samples type so unsorted data cannot reach a quantile (tinybench's pattern).
declare const sortedBrand: unique symbol;
export type SortedSamples = readonly number[] & { readonly [sortedBrand]: true };

export function sortSamples(values: Iterable<number>): SortedSamples {
  const out = [...values].filter((v) => Number.isFinite(v));
  out.sort((a, b) => a - b);
  return out as unknown as SortedSamples;
}

// Linear interpolation between closest ranks (Hyndman & Fan type 7, numpy's default).
export function quantile(s: SortedSamples, q: number): number | null {
  if (s.length === 0) return null;
  if (q <= 0) return s[0]!;
  if (q >= 1) return s[s.length - 1]!;
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const frac = pos - lo;
  const a = s[lo]!;
  const b = s[Math.min(lo + 1, s.length - 1)]!;
  return a + (b - a) * frac;
}

export const median = (s: SortedSamples): number | null => quantile(s, 0.5);

export interface QuantileSet {
  p50: number | null;
  p90: number | null;
  p99: number | null;
}

export function quantiles(s: SortedSamples): QuantileSet {
  return { p50: quantile(s, 0.5), p90: quantile(s, 0.9), p99: quantile(s, 0.99) };
}

export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}
