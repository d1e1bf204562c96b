import { describe, expect, it } from 'vitest';
import { makeRng, type Rng } from '../../src/sim/rng.js';
import {
  batchMeansInterval,
  medianInterval,
  totalRateInterval,
  tQuantile,
  zQuantile,
} from '../../src/stats/interval.js';
import { sortSamples } from '../../src/stats/sorted.js';
import { compareFigure, describeComparison, geometricMean } from '../../src/stats/verdict.js';

const normal = (rng: Rng) => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());

// One decode window of N streams in lockstep: each engine step emits one token per stream; step times are
// lognormal with AR(1) correlation (a slow step tends to follow a slow step), scaled by `speed`.
function windowChunks(seed: number, speed: number, seconds = 30, streams = 16): Array<[number, number]> {
  const rng = makeRng(seed);
  const out: Array<[number, number]> = [];
  let t = 0;
  let e = 0;
  while (t < seconds * 1000) {
    e = 0.5 * e + Math.sqrt(1 - 0.25) * normal(rng);
    t += (20 * Math.exp(0.15 * e)) / speed;
    if (t < seconds * 1000) out.push([t, streams]);
  }
  return out;
}

function measure(seed: number, speed: number) {
  const chunks = windowChunks(seed, speed);
  const tokens = chunks.reduce((s, [, n]) => s + n, 0);
  return { value: tokens / 30, interval: totalRateInterval(chunks, 0, 30_000) };
}

describe('quantiles', () => {
  it('matches tabulated normal and t quantiles', () => {
    expect(zQuantile(0.975)).toBeCloseTo(1.959964, 5);
    expect(zQuantile(0.995)).toBeCloseTo(2.575829, 5);
    expect(zQuantile(0.01)).toBeCloseTo(-2.326348, 5);
    expect(tQuantile(0.975, 9)).toBeCloseTo(2.262, 1);
    expect(tQuantile(0.975, 30)).toBeCloseTo(2.042, 2);
    expect(tQuantile(0.975, 1)).toBeCloseTo(12.706, 2); // exact at 1 and 2 degrees of freedom
    expect(tQuantile(0.975, 2)).toBeCloseTo(4.303, 2);
  });
});

describe('intervals', () => {
  it('covers the true median about 95% of the time (order statistics)', () => {
    const rng = makeRng(11);
    let covered = 0;
    const trials = 600;
    for (let i = 0; i < trials; i++) {
      const xs = Array.from({ length: 41 }, () => Math.exp(0.4 * normal(rng))); // true median 1
      const iv = medianInterval(sortSamples(xs))!;
      if (iv.lo <= 1 && 1 <= iv.hi) covered += 1;
    }
    expect(covered / trials).toBeGreaterThan(0.92);
    expect(covered / trials).toBeLessThan(0.99);
    expect(medianInterval(sortSamples([1, 2, 3, 4, 5]))).toBeNull();
  });

  it('covers the true total rate about 95% of the time despite correlated steps (batch means)', () => {
    // The long-run rate of the step process, from one very long window.
    const long = windowChunks(999, 1, 3000);
    const truth = (long.reduce((s, [, n]) => s + n, 0) * 1000) / long[long.length - 1]![0];
    let covered = 0;
    const trials = 300;
    for (let seed = 1; seed <= trials; seed++) {
      const iv = measure(seed, 1).interval!;
      if (iv.lo <= truth && truth <= iv.hi) covered += 1;
    }
    expect(covered / trials).toBeGreaterThan(0.9);
  });

  it('returns no interval from too little data', () => {
    expect(batchMeansInterval([1, 2, 3])).toBeNull();
    expect(totalRateInterval([], 10, 10)).toBeNull();
  });
});

describe('verdicts', () => {
  it('calls B slower when it is 5% slower under known noise, in at least 95% of seeds', () => {
    let slower = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const c = compareFigure(measure(seed, 1), measure(10_000 + seed, 0.95), 'higher-is-better');
      if (c.verdict === 'slower') slower += 1;
    }
    expect(slower / 200).toBeGreaterThanOrEqual(0.95);
  });

  it('raises a false alarm on a rerun of A in at most 5% of seeds', () => {
    let alarms = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const c = compareFigure(measure(seed, 1), measure(20_000 + seed, 1), 'higher-is-better');
      if (c.verdict !== 'no significant difference') alarms += 1;
    }
    expect(alarms / 300).toBeLessThanOrEqual(0.05);
  });

  it('reads lower-is-better figures the other way and words the result', () => {
    const a = { value: 100, interval: { lo: 98, hi: 102 } };
    const b = { value: 110, interval: { lo: 108, hi: 112 } };
    const ttft = compareFigure(a, b, 'lower-is-better');
    expect(ttft.verdict).toBe('slower');
    expect(describeComparison(ttft)).toBe('B is 9% ± 2% slower than A');
    const rate = compareFigure(a, b, 'higher-is-better');
    expect(rate.verdict).toBe('faster');
    expect(compareFigure(a, { value: 101, interval: { lo: 99, hi: 103 } }, 'higher-is-better').verdict).toBe(
      'no significant difference',
    );
    expect(compareFigure(a, { value: 90 }, 'higher-is-better').verdict).toBe('no interval');
    expect(geometricMean([0.5, 2])).toBeCloseTo(1, 10);
  });
});
