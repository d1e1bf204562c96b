import type { SortedSamples } from './sorted.js';

// Uncertainty of a cell's figures (docs/method.md "Intervals"), all at 95% and all distribution-free where the
// figure is a median: a figure without its interval cannot tell a regression from noise.

export const CONFIDENCE = 0.95;

export interface Interval {
  lo: number;
  hi: number;
}

// Acklam's rational approximation of the standard normal quantile (relative error < 1.2e-9).
export function zQuantile(p: number): number {
  if (p <= 0 || p >= 1) throw new RangeError(`zQuantile needs 0 < p < 1, got ${p}`);
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ];
  const b = [
    -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572,
  ];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const lowTail = (q: number) =>
    (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
    ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  if (p < 0.02425) return lowTail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - 0.02425) return -lowTail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}

// Student t quantile: exact for 1 and 2 degrees of freedom (2 and 3 repeats of a cell), the Cornish-Fisher
// expansion around the normal one above (within 1% for df >= 3).
export function tQuantile(p: number, df: number): number {
  if (df === 1) return Math.tan(Math.PI * (p - 0.5));
  if (df === 2) return (2 * p - 1) / Math.sqrt(2 * p * (1 - p));
  const z = zQuantile(p);
  const z3 = z ** 3;
  const z5 = z ** 5;
  const z7 = z ** 7;
  return (
    z +
    (z3 + z) / (4 * df) +
    (5 * z5 + 16 * z3 + 3 * z) / (96 * df ** 2) +
    (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df ** 3)
  );
}

// Distribution-free interval of a median from order statistics: the ranks n/2 -+ z sqrt(n)/2 (the normal
// approximation of the binomial count below the median). Needs 6 samples to say anything at 95%.
export function medianInterval(s: SortedSamples, confidence = CONFIDENCE): Interval | null {
  const n = s.length;
  if (n < 6) return null;
  const z = zQuantile(1 - (1 - confidence) / 2);
  const half = (z * Math.sqrt(n)) / 2;
  const lo = Math.max(0, Math.floor(n / 2 - half));
  const hi = Math.min(n - 1, Math.ceil(n / 2 + half) - 1);
  return { lo: s[lo]!, hi: s[hi]! };
}

// Interval of a mean rate from consecutive sub-window rates (batch means). Neighbouring sub-windows of one
// stream are correlated (a slow step slows both), so the variance is inflated by (1 + r1) / (1 - r1) with r1
// the lag-1 autocorrelation, as in steady-state simulation output analysis.
export function batchMeansInterval(rates: readonly number[], confidence = CONFIDENCE): Interval | null {
  const k = rates.length;
  if (k < 4) return null;
  let mean = 0;
  for (const r of rates) mean += r;
  mean /= k;
  let ss = 0;
  let lag = 0;
  for (let i = 0; i < k; i++) {
    ss += (rates[i]! - mean) ** 2;
    if (i > 0) lag += (rates[i]! - mean) * (rates[i - 1]! - mean);
  }
  const variance = ss / (k - 1);
  const r1 = ss > 0 ? Math.min(0.9, Math.max(0, lag / ss)) : 0;
  const se = Math.sqrt((variance / k) * ((1 + r1) / (1 - r1)));
  const t = tQuantile(1 - (1 - confidence) / 2, k - 1);
  return { lo: Math.max(0, mean - t * se), hi: mean + t * se };
}

export const TOTAL_RATE_BATCHES = 10;

// Total tok/s of a window split into equal sub-windows: each sub-window's tokens / its length.
export function totalRateInterval(
  chunks: Iterable<readonly [number, number]>, // [arrivalMs, tokens] of every request, token-bearing chunks
  openMs: number,
  closeMs: number,
  batches = TOTAL_RATE_BATCHES,
): Interval | null {
  const lengthMs = closeMs - openMs;
  if (lengthMs <= 0) return null;
  const tokens = new Array<number>(batches).fill(0);
  for (const [t, n] of chunks) {
    if (t < openMs || t >= closeMs || n <= 0) continue;
    tokens[Math.min(batches - 1, Math.floor(((t - openMs) / lengthMs) * batches))]! += n;
  }
  return batchMeansInterval(tokens.map((n) => (n * 1000 * batches) / lengthMs));
}

// Half the interval's width relative to the figure: "± 2%" in tables.
export function relativeHalfWidth(i: Interval | null | undefined, figure: number | null): number | null {
  if (!i || figure === null || figure <= 0) return null;
  return (i.hi - i.lo) / 2 / figure;
}

// Distribution-free interval of any quantile q from order statistics, with exact binomial ranks (a load level's
// p50, p90 and p99; docs/method.md "Intervals"). The number B of samples at or below the true q quantile is
// Binomial(n, q), so [x(l), x(u)] (1-based ranks) covers it with probability P(l <= B < u): l is the largest rank
// with P(B < l) <= alpha / 2 and u the smallest with P(B >= u) <= alpha / 2. Null when either falls outside the
// sample: too few samples for that quantile (a p99 needs 368, a median 6).
export function quantileInterval(s: SortedSamples, q: number, confidence = CONFIDENCE): Interval | null {
  const n = s.length;
  if (n === 0 || !(q > 0 && q < 1)) return null;
  const tail = (1 - confidence) / 2;
  const cdf = binomialCdf(n, q);
  let l = 0; // P(B < l) = cdf[l - 1]
  while (l < n && cdf[l]! <= tail) l++;
  let u = n + 1; // P(B >= u) = 1 - cdf[u - 1]
  while (u > 1 && 1 - cdf[u - 2]! <= tail) u--;
  if (l < 1 || u > n) return null;
  return { lo: s[l - 1]!, hi: s[u - 1]! };
}

// P(B <= k) for k = 0..n, B ~ Binomial(n, p), from log probabilities (no underflow at large n).
function binomialCdf(n: number, p: number): Float64Array {
  const logFact = new Float64Array(n + 1);
  for (let k = 1; k <= n; k++) logFact[k] = logFact[k - 1]! + Math.log(k);
  const lp = Math.log(p);
  const lq = Math.log1p(-p);
  const cdf = new Float64Array(n + 1);
  let sum = 0;
  for (let k = 0; k <= n; k++) {
    sum += Math.exp(logFact[n]! - logFact[k]! - logFact[n - k]! + k * lp + (n - k) * lq);
    cdf[k] = Math.min(1, sum);
  }
  return cdf;
}
