import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sleep } from '../../src/clock.js';
import type { LoadLevel } from '../../src/results/schema.js';
import type { TruthRecord } from '../../src/sim/truth.js';
import { memoryStream, runVirtual, virtualSettings, virtualRig, type VirtualRun } from './virtual-run.js';
import { BenchRun } from '../../src/bench/run.js';

// Arrivals at a rate through the whole runner (docs/workloads.md "Load models"): what reached the sim, read from its truth
// log, not the schedule the client computed. Long levels in virtual time: thousands of arrivals in seconds of CPU.

const out = () => mkdtempSync(join(tmpdir(), 'arrivals-'));
const SIM = { overrides: { reasoningTokens: 0 } };

// One open level of the fixed workload at 256 tokens with short answers, no warm-up: its window is the whole level.
async function openRun(
  rate: number,
  durationS: number,
  over: Record<string, unknown> = {},
): Promise<VirtualRun> {
  const r = await runVirtual(
    virtualSettings(out(), {
      contexts: [256],
      rates: [rate],
      duration: durationS,
      warmup: 0,
      maxOutput: 4,
      ...over,
    }),
    { sim: SIM },
  );
  if (r.error) throw r.error;
  return r;
}

// The arrival times the sim saw inside the level's window, in order.
function arrivalsIn(r: VirtualRun, level: LoadLevel): number[] {
  return r.sim.truth
    .all()
    .filter((t: TruthRecord) => t.arrivalMs >= level.windowOpenMs && t.arrivalMs < level.windowCloseMs)
    .map((t) => t.arrivalMs)
    .sort((a, b) => a - b);
}

// P(X <= k) for X ~ Poisson(mean), summed in log space.
function poissonCdf(k: number, mean: number): number {
  let logP = -mean;
  let sum = Math.exp(logP);
  for (let i = 1; i <= k; i++) {
    logP += Math.log(mean / i);
    sum += Math.exp(logP);
  }
  return Math.min(1, sum);
}

// The central 99% interval of Poisson(mean): the smallest lo with P(X < lo) <= 0.005 and P(X > hi) <= 0.005.
function poisson99(mean: number): [number, number] {
  let lo = 0;
  while (poissonCdf(lo, mean) <= 0.005) lo++;
  let hi = lo;
  while (1 - poissonCdf(hi, mean) > 0.005) hi++;
  return [lo, hi];
}

// Kolmogorov-Smirnov distance of the gaps from the exponential of the rate (known, not fitted).
function ksExponential(gapsMs: readonly number[], ratePerS: number): number {
  const s = [...gapsMs].sort((a, b) => a - b);
  let d = 0;
  s.forEach((x, i) => {
    const f = 1 - Math.exp((-ratePerS * x) / 1000);
    d = Math.max(d, Math.abs((i + 1) / s.length - f), Math.abs(i / s.length - f));
  });
  return d;
}

const gapsOf = (t: readonly number[]) => t.slice(1).map((x, i) => x - t[i]!);

function cv(xs: readonly number[]): number {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const variance = xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1);
  return Math.sqrt(variance) / mean;
}

describe('arrivals at a rate, as the sim saw them', () => {
  it('Poisson: counts per second and in the window inside the 99% interval, gaps exponential (KS at 1%)', async () => {
    const rate = 10;
    const seconds = 400;
    const r = await openRun(rate, seconds);
    const level = r.result.levels![0]!;
    const t = arrivalsIn(r, level);
    // The level counted what the sim saw.
    expect(level.requests.arrived).toBe(t.length);
    const [lo, hi] = poisson99(rate * seconds);
    expect(t.length).toBeGreaterThanOrEqual(lo);
    expect(t.length).toBeLessThanOrEqual(hi);
    const perSecond = new Array<number>(seconds).fill(0);
    for (const x of t) perSecond[Math.floor((x - level.windowOpenMs) / 1000)]! += 1;
    const [a, b] = poisson99(rate);
    const outside = perSecond.filter((n) => n < a || n > b).length;
    expect(outside / seconds).toBeLessThanOrEqual(0.02); // at most 1% expected
    const gaps = gapsOf(t);
    expect(ksExponential(gaps, rate)).toBeLessThan(1.628 / Math.sqrt(gaps.length));
    // A wrong rate fails the same test: it can fail.
    expect(ksExponential(gaps, rate * 1.2)).toBeGreaterThan(1.628 / Math.sqrt(gaps.length));
  });

  for (const burstiness of [0.5, 4]) {
    it(`gamma of burstiness ${burstiness}: the gaps' coefficient of variation is 1/sqrt(B) within 10%`, async () => {
      const r = await openRun(10, 400, { arrival: 'gamma', burstiness });
      const level = r.result.levels![0]!;
      expect(level.load).toMatchObject({ arrival: 'gamma', burstiness });
      const gaps = gapsOf(arrivalsIn(r, level));
      expect(gaps.length).toBeGreaterThan(3500);
      expect(cv(gaps) / (1 / Math.sqrt(burstiness))).toBeGreaterThan(0.9);
      expect(cv(gaps) / (1 / Math.sqrt(burstiness))).toBeLessThan(1.1);
      // The mean gap is the rate's whatever the shape.
      const mean = gaps.reduce((x, y) => x + y, 0) / gaps.length;
      expect(mean).toBeGreaterThan(90);
      expect(mean).toBeLessThan(110);
    });
  }
});

describe('a level whose client falls behind its schedule', () => {
  it('is Client-bound, not judged: each request leaves 30 ms late (a busy client loop, injected)', async () => {
    const rig = virtualRig({ sim: SIM });
    const inner = memoryStream(rig.sim, rig.clock);
    // The client's own delay before each send, on the virtual clock: sentAtMs is 30 ms past the schedule.
    const late = async (o: Parameters<typeof inner>[0]) => {
      await sleep(rig.clock, 30);
      return inner(o);
    };
    const settings = virtualSettings(out(), {
      contexts: [256],
      rates: [5],
      duration: 20,
      warmup: 0,
      maxOutput: 4,
    });
    const run = new BenchRun(settings, { ...rig.deps, stream: late });
    await rig.drive(run.start());
    const saved = readFileSync(join(settings.out, 'virtual', 'result.json'), 'utf8');
    const l = (JSON.parse(saved) as { levels: LoadLevel[] }).levels[0]!;
    expect(l.status).toBe('Client-bound');
    expect(l.lag.p99Ms).toBeCloseTo(30, 6);
    // A tenth of the mean gap (the window over its arrivals, about 200 ms), which is over 10 ms.
    expect(l.lag.limitMs).toBeCloseTo((0.1 * (l.windowCloseMs - l.windowOpenMs)) / l.requests.arrived, 9);
    expect(l.lag.limitMs).toBeGreaterThan(10);
    expect(l.lag.limitMs).toBeLessThan(30);
    expect(l.evidence).toMatch(/behind their schedule/);
    // On schedule, the same level is judged: the mark is the lag's, not the load's.
    const onTime = await openRun(5, 20);
    expect(onTime.result.levels![0]!.status).toBe('Valid');
    expect(onTime.result.levels![0]!.lag.p99Ms).toBe(0);
  });
});
