import { describe, expect, it } from 'vitest';
import { arrivalOffsets, arrivalSeed, traceSchedule } from '../../src/load/arrivals.js';

// The acceptance of the open loop (docs/workloads.md "Load models"): every reference below (the Poisson CDF, the
// Kolmogorov critical value, the Erlang CDF, the standard error of a coefficient of variation) is computed here
// from its formula, not taken from src/.

const gapsOf = (t: number[]) => t.slice(1).map((x, i) => x - t[i]!);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs: number[]) => {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
};

// The central 99% interval of Poisson(mu): the smallest k with P(X <= k) >= 0.005 up to the smallest with
// P(X <= k) >= 0.995, the CDF summed term by term in logs so a mean of 20,000 does not underflow.
function poissonInterval(mu: number): [number, number] {
  let logP = -mu; // log P(X = 0)
  let cdf = Math.exp(logP);
  let k = 0;
  let lo: number | undefined;
  for (;;) {
    if (lo === undefined && cdf >= 0.005) lo = k;
    if (cdf >= 0.995) return [lo!, k];
    k++;
    logP += Math.log(mu) - Math.log(k);
    cdf += Math.exp(logP);
  }
}
// Kolmogorov–Smirnov distance of a sample from a CDF.
function ksDistance(xs: number[], cdf: (x: number) => number): number {
  const s = [...xs].sort((a, b) => a - b);
  let d = 0;
  s.forEach((x, i) => {
    const f = cdf(x);
    d = Math.max(d, (i + 1) / s.length - f, f - i / s.length);
  });
  return d;
}
// Asymptotic critical value at level alpha: sqrt(-ln(alpha / 2) / 2) / sqrt(n) (1.628 / sqrt(n) at 1%).
const ksCritical = (n: number, alpha = 0.01) => Math.sqrt(-Math.log(alpha / 2) / 2) / Math.sqrt(n);
const expCdf = (meanMs: number) => (x: number) => 1 - Math.exp(-x / meanMs);
// Erlang (gamma of integer shape k) CDF with mean m: 1 - sum_{j<k} e^-y y^j / j!, y = x k / m.
const erlangCdf = (k: number, meanMs: number) => (x: number) => {
  const y = (x * k) / meanMs;
  let term = Math.exp(-y);
  let s = term;
  for (let j = 1; j < k; j++) {
    term *= y / j;
    s += term;
  }
  return 1 - s;
};

describe('Poisson arrivals', () => {
  const rate = 10; // req/s
  const horizonMs = 2_000_000; // 20,000 arrivals expected
  const t = arrivalOffsets({ kind: 'poisson', rate }, horizonMs, arrivalSeed(42, '8192', rate));

  it('count over the whole horizon falls in the Poisson 99% interval', () => {
    const [lo, hi] = poissonInterval((rate * horizonMs) / 1000);
    expect(hi - lo).toBeGreaterThan(250); // about 2 x 2.576 x sqrt(20,000) = 729: the interval is real
    expect(t.length).toBeGreaterThanOrEqual(lo);
    expect(t.length).toBeLessThanOrEqual(hi);
    expect(t.every((x, i) => x >= 0 && x < horizonMs && (i === 0 || x >= t[i - 1]!))).toBe(true);
  });

  it('counts per 1-second window: no more outside the 99% interval than a 1% chance allows', () => {
    const windows = horizonMs / 1000;
    const counts = new Array<number>(windows).fill(0);
    for (const x of t) counts[Math.floor(x / 1000)]!++;
    const [lo, hi] = poissonInterval(rate);
    expect([lo, hi]).toEqual([3, 19]); // Poisson(10): P(X <= 2) = 0.0028, P(X <= 18) = 0.9928, P(X <= 19) = 0.9965
    const outside = counts.filter((c) => c < lo || c > hi).length;
    // The interval leaves at most 1% outside, so `outside` is at most Binomial(2,000, 0.01): mean 20, sd 4.45;
    // 20 + 3.29 sd is its 99.95% bound.
    expect(outside).toBeLessThanOrEqual(Math.ceil(20 + 3.29 * Math.sqrt(2000 * 0.01 * 0.99)));
    expect(mean(counts)).toBeCloseTo(t.length / windows, 10);
  });

  it('gaps pass a Kolmogorov–Smirnov test against the exponential of mean 1/rate at the 1% level', () => {
    const gaps = gapsOf(t);
    expect(ksDistance(gaps, expCdf(1000 / rate))).toBeLessThan(ksCritical(gaps.length));
    // The test can fail: the same gaps against a rate 3% off, or constant gaps, are rejected.
    expect(ksDistance(gaps, expCdf(1000 / (rate * 1.03)))).toBeGreaterThan(ksCritical(gaps.length));
    const constant = gapsOf(arrivalOffsets({ kind: 'constant', rate }, horizonMs, 1));
    expect(ksDistance(constant, expCdf(1000 / rate))).toBeGreaterThan(ksCritical(constant.length));
  });

  it('the same seed gives the same arrivals, another seed others', () => {
    const again = arrivalOffsets({ kind: 'poisson', rate }, horizonMs, arrivalSeed(42, '8192', rate));
    expect(again).toEqual(t);
    const other = arrivalOffsets({ kind: 'poisson', rate }, horizonMs, arrivalSeed(43, '8192', rate));
    expect(other.slice(0, 100)).not.toEqual(t.slice(0, 100));
    expect(arrivalSeed(42, '8192', rate)).not.toBe(arrivalSeed(42, '16384', rate));
    expect(arrivalSeed(42, '8192', rate)).not.toBe(arrivalSeed(42, '8192', 2.5));
  });
});

describe('gamma arrivals', () => {
  const rate = 5;
  const n = 20_000;
  const horizonMs = (n / rate) * 1000;

  // Delta method: CV = s / m with Var(s^2) = (mu4 - sigma^4) / n and Cov(s^2, m) = mu3 / n; for a gamma of
  // shape k (skewness 2/sqrt(k), excess kurtosis 6/k) this gives SE(CV) = CV sqrt((1 + 1/k) / (2n)).
  const seCv = (k: number, count: number) => (1 / Math.sqrt(k)) * Math.sqrt((1 + 1 / k) / (2 * count));

  it.each([0.25, 0.5, 1, 4, 16])(
    'burstiness %s: mean gap 1/rate and coefficient of variation 1/sqrt(B), each within 4 standard errors',
    (b) => {
      const gaps = gapsOf(arrivalOffsets({ kind: 'gamma', rate, burstiness: b }, horizonMs, 7));
      const cv = 1 / Math.sqrt(b);
      expect(Math.abs(mean(gaps) - 1000 / rate)).toBeLessThan(
        (4 * (cv * 1000)) / rate / Math.sqrt(gaps.length),
      );
      expect(Math.abs(sd(gaps) / mean(gaps) - cv)).toBeLessThan(4 * seCv(b, gaps.length));
    },
  );

  it('shape 4 gaps follow the Erlang-4 distribution, and are not exponential', () => {
    const gaps = gapsOf(arrivalOffsets({ kind: 'gamma', rate, burstiness: 4 }, horizonMs, 11));
    expect(ksDistance(gaps, erlangCdf(4, 1000 / rate))).toBeLessThan(ksCritical(gaps.length));
    expect(ksDistance(gaps, expCdf(1000 / rate))).toBeGreaterThan(ksCritical(gaps.length));
  });

  it('burstiness 1 is Poisson: the same arrivals from the same seed', () => {
    expect(arrivalOffsets({ kind: 'gamma', rate, burstiness: 1 }, 100_000, 3)).toEqual(
      arrivalOffsets({ kind: 'poisson', rate }, 100_000, 3),
    );
  });
});

describe('constant arrivals and traces', () => {
  it('constant gaps are exact: 1/rate from the start, ceil(horizon x rate) arrivals', () => {
    const t = arrivalOffsets({ kind: 'constant', rate: 3 }, 10_000, 99);
    expect(t.length).toBe(30);
    expect(t[0]).toBe(0);
    for (const [i, x] of t.entries()) expect(x).toBeCloseTo((i * 1000) / 3, 9);
    expect(arrivalOffsets({ kind: 'constant', rate: 2.5 }, 1_000, 1)).toEqual([0, 400, 800]);
  });

  it('a bad rate or burstiness, or a window of too many arrivals, is one clear error', () => {
    expect(() => arrivalOffsets({ kind: 'poisson', rate: 0 }, 1000, 1)).toThrow(/positive number/);
    expect(() => arrivalOffsets({ kind: 'gamma', rate: 1, burstiness: -1 }, 1000, 1)).toThrow(/burstiness/);
    expect(() => arrivalOffsets({ kind: 'poisson', rate: 1e6 }, 3_600_000, 1)).toThrow(/arrivals, past/);
  });

  it('a trace replays from its first timestamp, time-scale times faster', () => {
    expect(traceSchedule([1000, 1500, 4000], 1)).toEqual([0, 500, 3000]);
    expect(traceSchedule([1000, 1500, 4000], 2)).toEqual([0, 250, 1500]);
    expect(traceSchedule([], 2)).toEqual([]);
    expect(() => traceSchedule([0], 0)).toThrow(/time-scale/);
  });
});
