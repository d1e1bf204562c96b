import { describe, expect, it } from 'vitest';
import { searchState, type RateStep } from '../../src/answer/rate-search.js';
import {
  erlangC,
  highestRateWithin,
  mdOneMeanWaitMs,
  mdOneWaitCdf,
  mmcWaitTail,
  shareWithin,
  simulateWaits,
  type QueueModel,
} from './mdc-queue.js';

// The queue model the rate search's acceptance is judged by, checked against closed forms: Pollaczek-Khinchine and
// Erlang's waiting-time distribution for M/D/1, Erlang C for M/M/c. Tolerances are 4 batch-means standard errors
// (40 batches of consecutive arrivals: neighbours in a queue are correlated, batches of 5,000 much less).
function batchMeans(values: Float64Array, f: (x: number) => number, batches = 40) {
  const size = Math.floor(values.length / batches);
  const means: number[] = [];
  for (let b = 0; b < batches; b++) {
    let s = 0;
    for (let i = b * size; i < (b + 1) * size; i++) s += f(values[i]!);
    means.push(s / size);
  }
  const mean = means.reduce((a, x) => a + x, 0) / batches;
  const sd = Math.sqrt(means.reduce((a, x) => a + (x - mean) ** 2, 0) / (batches - 1));
  return { mean, se: sd / Math.sqrt(batches) };
}

describe('the M/D/c queue model (test helper)', () => {
  it('gives the closed forms by hand', () => {
    // rho = 0.7, S = 100 ms: 0.7 × 100 / (2 × 0.3) = 116.67 ms.
    expect(mdOneMeanWaitMs(7, 100)).toBeCloseTo(116.667, 3);
    // Below one service time P(W <= t) = (1 - rho) e^{lambda t}: 0.3 × e^{0.35} at t = 50 ms.
    expect(mdOneWaitCdf(7, 100, 50)).toBeCloseTo(0.3 * Math.exp(0.35), 12);
    expect(mdOneWaitCdf(7, 100, 0)).toBeCloseTo(0.3, 12);
    // c = 4, a = 3: sum_{k<4} 3^k / k! = 13, 3^4 / 4! / (1 - 0.75) = 13.5, so C = 13.5 / 26.5.
    expect(erlangC(4, 3)).toBeCloseTo(13.5 / 26.5, 12);
  });

  it('matches Pollaczek-Khinchine and Erlang for M/D/1', () => {
    const m: QueueModel = { servers: 1, serviceMs: 100 };
    const w = simulateWaits(m, { rate: 7, arrivals: 400_000, seed: 5 });
    const mean = batchMeans(w, (x) => x);
    expect(Math.abs(mean.mean - mdOneMeanWaitMs(7, 100))).toBeLessThan(4 * mean.se);
    for (const t of [0, 50, 150, 250, 400]) {
      const share = batchMeans(w, (x) => (x <= t ? 1 : 0));
      expect(Math.abs(share.mean - mdOneWaitCdf(7, 100, t)), `t = ${t} ms`).toBeLessThan(4 * share.se);
    }
  });

  it('matches Erlang C for M/M/c, several servers at once', () => {
    // c = 4, mean service 100 ms, 30 req/s: a = 3 erlangs, rho = 0.75.
    const m: QueueModel = { servers: 4, serviceMs: 100, service: 'exponential' };
    const w = simulateWaits(m, { rate: 30, arrivals: 400_000, seed: 9 });
    const mean = batchMeans(w, (x) => x);
    // E[W] = C / (c mu - lambda) = (13.5 / 26.5) / (0.04 - 0.03) per ms = 50.9 ms.
    expect(Math.abs(mean.mean - 13.5 / 26.5 / 0.01)).toBeLessThan(4 * mean.se);
    for (const t of [0, 25, 100]) {
      const tail = batchMeans(w, (x) => (x > t ? 1 : 0));
      expect(Math.abs(tail.mean - mmcWaitTail(4, 30, 100, t)), `t = ${t} ms`).toBeLessThan(4 * tail.se);
    }
  });

  it('finds the highest rate meeting a share within 1% of the M/D/1 closed form', () => {
    const m: QueueModel = { servers: 1, serviceMs: 100 };
    const o = { boundMs: 150, share: 0.9 };
    // The closed form's own root, by bisection on Erlang's formula: P(W <= 150 ms) = 0.9.
    let lo = 0;
    let hi = 10;
    for (let i = 0; i < 60; i++) {
      const mid = (lo + hi) / 2;
      if (mdOneWaitCdf(mid, 100, o.boundMs) >= o.share) lo = mid;
      else hi = mid;
    }
    const model = highestRateWithin(m, { ...o, arrivals: 400_000, seed: 3 });
    expect(Math.abs(model / lo - 1)).toBeLessThan(0.01);
    expect(shareWithin(m, { rate: model * 0.95, seed: 3 }, o.boundMs)).toBeGreaterThan(o.share);
  });

  it('lets the rate search find an M/D/c limit within 10% in at most 8 windows', () => {
    // 8 seats held 2 s each (a constant step, fixed lengths): at most 4 req/s; 90% must wait under 250 ms.
    const m: QueueModel = { servers: 8, serviceMs: 2000 };
    const o = { boundMs: 250, share: 0.9, arrivals: 100_000, seed: 2 };
    const limit = highestRateWithin(m, o);
    expect(limit).toBeGreaterThan(2);
    expect(limit).toBeLessThan(4);
    const steps: RateStep[] = [];
    for (let s = searchState(steps, { start: 1 }); !s.done; s = searchState(steps, { start: 1 })) {
      const rate = s.next!;
      steps.push({ rate, verdict: shareWithin(m, { ...o, rate }, o.boundMs) >= o.share ? 'meets' : 'fails' });
    }
    const found = searchState(steps, { start: 1 }).highestMeeting!;
    expect(steps.length).toBeLessThanOrEqual(8);
    expect(found).toBeLessThanOrEqual(limit);
    expect(found / limit).toBeGreaterThan(1 / 1.1);
  });
});
