// A small discrete-event model of a first-come-first-served queue with c servers and Poisson arrivals (M/D/c, or
// M/M/c with exponential service), written apart from the sim and the runner: the independent limit an acceptance
// test checks a rate search against (docs/workloads.md "The answer in requests per second"). A server of S seats
// whose every request holds a seat for a constant time (a constant step, fixed lengths) is an M/D/S queue: the
// share of requests whose wait for a seat stays within a bound, at an arrival rate, is what a TTFT service level
// asks of it (the bound: the level's TTFT less the unqueued TTFT).
import { mulberry32 } from '../../src/rng.js';

export interface QueueModel {
  servers: number; // c: requests served at once
  serviceMs: number; // each request's time in service (the mean, for exponential service)
  service?: 'deterministic' | 'exponential';
}

export interface QueueRun {
  rate: number; // arrivals per second
  arrivals?: number; // arrivals measured, after the warm-up; default 200,000
  warmup?: number; // arrivals discarded first (the queue starts empty); default a tenth of `arrivals`
  seed?: number;
}

const uniforms = mulberry32; // the seeded PRNG only: no sim code is on the model's path
const unitExponential = (u: () => number) => -Math.log(1 - u());

// Smallest-first binary heap of the times the servers come free.
class FreeTimes {
  private readonly h: number[];
  constructor(c: number) {
    this.h = new Array<number>(c).fill(0);
  }
  get min(): number {
    return this.h[0]!;
  }
  replaceMin(v: number): void {
    const h = this.h;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      const at = (k: number) => (k === i ? v : h[k]!);
      if (l < h.length && h[l]! < at(m)) m = l;
      if (r < h.length && h[r]! < at(m)) m = r;
      if (m === i) break;
      h[i] = h[m]!;
      i = m;
    }
    h[i] = v;
  }
}

/**
 * Each measured arrival's wait for a server (ms). The same seed draws the same unit gaps at every rate (common
 * random numbers: the gaps scale with 1/rate), so every wait grows with the rate and the share below a bound falls
 * monotonically: a bisection on the rate is well defined.
 */
export function simulateWaits(m: QueueModel, run: QueueRun): Float64Array {
  const n = run.arrivals ?? 200_000;
  const warm = run.warmup ?? Math.floor(n / 10);
  const gaps = uniforms(run.seed ?? 1);
  const services = uniforms((run.seed ?? 1) ^ 0x5bd1e995);
  const meanGapMs = 1000 / run.rate;
  const free = new FreeTimes(m.servers);
  const waits = new Float64Array(n);
  let t = 0;
  for (let i = 0; i < warm + n; i++) {
    t += unitExponential(gaps) * meanGapMs;
    const s = m.service === 'exponential' ? unitExponential(services) * m.serviceMs : m.serviceMs;
    const start = Math.max(t, free.min);
    free.replaceMin(start + s);
    if (i >= warm) waits[i - warm] = start - t;
  }
  return waits;
}

/** The share of arrivals that waited at most `boundMs` for a server, at `run.rate`. */
export function shareWithin(m: QueueModel, run: QueueRun, boundMs: number): number {
  const w = simulateWaits(m, run);
  let k = 0;
  for (const x of w) if (x <= boundMs) k++;
  return k / w.length;
}

/**
 * The highest arrival rate (req/s) at which at least `share` of the arrivals wait at most `boundMs`: bisection on
 * the model, between 0 and the servers' capacity c / service time, to a relative `tolerance`.
 */
export function highestRateWithin(
  m: QueueModel,
  o: { boundMs: number; share: number; arrivals?: number; seed?: number; tolerance?: number },
): number {
  const meets = (rate: number) =>
    shareWithin(m, { rate, arrivals: o.arrivals ?? 200_000, seed: o.seed ?? 1 }, o.boundMs) >= o.share;
  let lo = 0;
  let hi = (m.servers * 1000) / m.serviceMs; // at capacity the queue grows without bound
  if (meets(hi)) return hi;
  while (hi - lo > (o.tolerance ?? 0.001) * hi) {
    const mid = (lo + hi) / 2;
    if (meets(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

// Closed forms the model is checked against (test/helpers/mdc-queue.test.ts).

/** M/D/1 mean wait, Pollaczek-Khinchine: rho S / (2 (1 - rho)), rho = lambda S. */
export function mdOneMeanWaitMs(rate: number, serviceMs: number): number {
  const rho = (rate * serviceMs) / 1000;
  return (rho * serviceMs) / (2 * (1 - rho));
}

/** M/D/1 P(wait <= t), Erlang's formula: (1 - rho) sum_{k=0}^{floor(t/S)} (lambda (kS - t))^k / k! e^{-lambda (kS - t)}. */
export function mdOneWaitCdf(rate: number, serviceMs: number, tMs: number): number {
  const lambda = rate / 1000; // per ms
  const rho = lambda * serviceMs;
  let sum = 0;
  let fact = 1;
  for (let k = 0; k <= Math.floor(tMs / serviceMs); k++) {
    if (k > 0) fact *= k;
    const x = lambda * (k * serviceMs - tMs);
    sum += (x ** k / fact) * Math.exp(-x);
  }
  return (1 - rho) * sum;
}

/** Erlang C: the probability that an arrival waits, c servers offered a = lambda / mu erlangs (a < c). */
export function erlangC(c: number, a: number): number {
  let term = 1;
  let below = 0;
  for (let k = 0; k < c; k++) {
    below += term;
    term *= a / (k + 1);
  }
  const top = term / (1 - a / c); // a^c / c! / (1 - rho)
  return top / (below + top);
}

/** M/M/c P(wait > t) = C(c, a) e^{-(c mu - lambda) t}. */
export function mmcWaitTail(c: number, rate: number, serviceMs: number, tMs: number): number {
  const lambda = rate / 1000;
  const mu = 1 / serviceMs;
  return erlangC(c, lambda / mu) * Math.exp(-(c * mu - lambda) * tMs);
}
