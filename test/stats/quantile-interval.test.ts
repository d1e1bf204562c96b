import { describe, expect, it } from 'vitest';
import { makeRng } from '../../src/sim/rng.js';
import { quantileInterval } from '../../src/stats/interval.js';
import { sortSamples } from '../../src/stats/sorted.js';

// The exact-rank interval of any quantile (docs/method.md "Intervals"), for the p50/p90/p99 of a load level.
const ranks = (n: number) => sortSamples(Array.from({ length: n }, (_, i) => i + 1)); // x(k) = k

describe('quantile intervals (exact binomial ranks)', () => {
  it('gives the tabulated ranks of a median', () => {
    // n = 20: P(B <= 5) = 0.0207 and P(B <= 6) = 0.0577 for B ~ Bin(20, 1/2): the 95% interval is (x6, x15).
    expect(quantileInterval(ranks(20), 0.5)).toEqual({ lo: 6, hi: 15 });
    // n = 6: P(B = 0) = 1/64 <= 0.025 < 7/64: the whole sample; n = 5: 1/32 > 0.025, no interval.
    expect(quantileInterval(ranks(6), 0.5)).toEqual({ lo: 1, hi: 6 });
    expect(quantileInterval(ranks(5), 0.5)).toBeNull();
  });

  it('has a p99 interval from the first n where 0.99^n <= 2.5%, ending at the largest sample', () => {
    let first = 1;
    while (0.99 ** first > 0.025) first++;
    expect(first).toBe(368);
    expect(quantileInterval(ranks(first - 1), 0.99)).toBeNull();
    expect(quantileInterval(ranks(first), 0.99)?.hi).toBe(first);
    expect(quantileInterval(ranks(100), 0.9)?.hi).toBeLessThan(100);
    expect(quantileInterval(ranks(10), 0.9)).toBeNull(); // 0.9^10 = 0.35
  });

  it('covers the true quantile at least 95% of the time, and not far more', () => {
    const rng = makeRng(11);
    for (const [q, n, trials] of [
      [0.5, 60, 2000],
      [0.9, 200, 2000],
      [0.99, 800, 600],
    ] as const) {
      const truth = -Math.log(1 - q); // the exponential's q quantile
      let covered = 0;
      let judged = 0;
      for (let t = 0; t < trials; t++) {
        const s = sortSamples(Array.from({ length: n }, () => -Math.log(1 - rng())));
        const i = quantileInterval(s, q);
        if (!i) continue;
        judged++;
        if (i.lo <= truth && truth <= i.hi) covered++;
      }
      expect(judged).toBe(trials);
      // 95% nominal; exact ranks are conservative (discreteness); 3 binomial standard errors of slack.
      const se = Math.sqrt((0.95 * 0.05) / trials);
      expect(covered / trials, `q=${q}`).toBeGreaterThan(0.95 - 3 * se);
      expect(covered / trials, `q=${q}`).toBeLessThan(0.99);
    }
  });
});
