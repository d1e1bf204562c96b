import { describe, expect, it } from 'vitest';
import { mean, median, quantile, quantiles, sortSamples } from '../../src/stats/index.js';

// Reference values: numpy.quantile (method 'linear', type 7).
describe('quantiles on sorted samples', () => {
  it('matches numpy reference values', () => {
    const s = sortSamples([4, 1, 3, 2]);
    expect([...s]).toEqual([1, 2, 3, 4]);
    expect(median(s)).toBe(2.5); // np.median([1,2,3,4])
    expect(quantile(s, 0.9)).toBeCloseTo(3.7, 12); // np.quantile([1,2,3,4], .9)
    expect(quantile(s, 0.25)).toBeCloseTo(1.75, 12);
    const ten = sortSamples([10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(quantiles(ten)).toEqual({ p50: 5.5, p90: expect.closeTo(9.1, 12), p99: expect.closeTo(9.91, 12) });
    expect(median(sortSamples([7]))).toBe(7);
    expect(quantile(sortSamples([1, 100]), 0.99)).toBeCloseTo(99.01, 12);
  });

  it('returns null for no samples and drops non-finite values', () => {
    expect(median(sortSamples([]))).toBeNull();
    expect(quantiles(sortSamples([]))).toEqual({ p50: null, p90: null, p99: null });
    expect([...sortSamples([3, NaN, 1, Infinity])]).toEqual([1, 3]);
    expect(mean([])).toBeNull();
    expect(mean([1, 2, 6])).toBe(3);
  });
});
