import { describe, expect, it } from 'vitest';
import { ApiServer } from '../../src/sim/curves.js';
import { loadProfile } from '../../src/sim/profiles.js';
import { simulateCell } from '../../src/sim/what-if.js';
import type { RunResult } from '../../src/results/schema.js';
import { judge } from './judge.js';
import { observe, selectObservations } from '../../src/twin/observe.js';
import { predict } from '../../src/twin/predict.js';
import { simulatedResult } from './sim-result.js';
import { fitTwin } from '../../src/twin/twin.js';
import { planOf } from './helpers.js';

// An engine whose API server spends 25 ms + prompt / 1M tok/s of each request on one thread (of 60 ms + prompt /
// 400K in all): a wave of N prompts reaches the engine spread over N serial times, so the ramp's median TTFT grows
// with N where one request's does not.
const API = {
  requestOverheadMs: 60,
  apiTokensPerS: 400_000,
  apiSerialMs: 25,
  apiSerialTokensPerS: 1_000_000,
};
const engine = loadProfile('demo', {
  ...API,
  maxNumSeqs: 32,
  kvCapacityTokens: 400_000,
  maxModelLen: 16_384,
});
const GRID = {
  contexts: [1024, 2048, 4096, 8192],
  concurrency: [1, 2, 4, 8, 16, 32],
  prefillContexts: [1024, 4096, 8192],
  maxOutput: 2048, // requests outlast the 5 s window: every TTFT is the ramp's first wave
  windowS: 5,
};
const measured = simulatedResult(engine, GRID);
const seen = new Set(['1024x1', '1024x2', '1024x4', '1024x8', '1024x16', '1024x32', '8192x1', '8192x16']);
const obs = selectObservations(observe([{ result: measured, source: 'serial' }]), {
  decode: seen,
  prefill: new Set([1024, 8192]),
});

describe('the API server queue (sim)', () => {
  it('lets one request through in its API time, and the k-th of a wave k - 1 serial times later', () => {
    const api = new ApiServer(engine);
    const alone = api.arrivalMs(0, 4000) - 0;
    expect(alone).toBeCloseTo(60 + 10, 6); // 60 ms + 4,000 / 400K tok/s
    const later = new ApiServer(engine);
    const wave = [0, 1, 2, 3].map(() => later.arrivalMs(1000, 4000) - 1000);
    expect(wave).toEqual([70, 70 + 29, 70 + 58, 70 + 87]); // serial: 25 ms + 4,000 / 1M tok/s = 29 ms
  });

  it('makes the first wave wait: the median TTFT of 16 at once is about 7.5 serial times above one alone', () => {
    const one = simulateCell(engine, { contextTokens: 4096, concurrency: 1, maxOutput: 2048, windowS: 5 });
    const sixteen = simulateCell(engine, {
      contextTokens: 4096,
      concurrency: 16,
      maxOutput: 2048,
      windowS: 5,
    });
    const serial = 25 + 4096 / 1000;
    expect(sixteen.ttftMs! - one.ttftMs!).toBeGreaterThan(7 * serial);
    expect(sixteen.ttftMs! - one.ttftMs!).toBeLessThan(9 * serial);
    expect(sixteen.ttft.p90!).toBeGreaterThan(sixteen.ttftMs! + 5 * serial); // the wave's tail
  });
});

describe('a twin of it', () => {
  const twin = fitTwin(obs, planOf(measured));
  const p = predict(twin.profile, twin.meta);

  it('recovers the serial time from the cells with several requests at once', () => {
    expect(twin.profile.apiSerialMs).toBeGreaterThan(25 * 0.8);
    expect(twin.profile.apiSerialMs).toBeLessThan(25 * 1.2);
    expect(twin.params.find((q) => q.name === 'API server serial time')?.from).toContain('1K × 32');
  });

  it('predicts the TTFT (median and p90) of the cells it did not see within 25%', () => {
    const j = judge(measured, p, seen);
    expect(j.figures.ttft.judged).toBeGreaterThan(10);
    expect(j.figures.ttft.within).toBe(j.figures.ttft.judged);
    expect(j.figures.ttftP90.within).toBe(j.figures.ttftP90.judged);
    expect(j.figures.total.within).toBe(j.figures.total.judged);
  });

  it('leaves out a cell no serial time can reach, and names it', () => {
    const paused = {
      ...obs,
      decode: obs.decode.map((d) =>
        d.contextTokens === 1024 && d.concurrency === 8 ? { ...d, ttftMs: 11_000 } : d,
      ),
    };
    const t = fitTwin(paused, planOf(measured));
    const q = t.params.find((x) => x.name === 'API server serial time')!;
    expect(q.quality).toMatch(/left out 1K × 8 \(a TTFT no serial time reaches/);
    expect(t.profile.apiSerialMs).toBeGreaterThan(25 * 0.8);
    expect(t.profile.apiSerialMs).toBeLessThan(25 * 1.2);
  });

  it('keeps a pause out of its TTFT spread, and widens it for a model that misses by half', () => {
    const scaled = (k: number, which: (d: (typeof obs.decode)[number]) => boolean) =>
      fitTwin(
        { ...obs, decode: obs.decode.map((d) => (which(d) ? { ...d, ttftMs: d.ttftMs! * k } : d)) },
        planOf(measured),
      ).meta.sigma.ttft;
    const at = (c: number, n: number) => (d: { contextTokens: number; concurrency: number }) =>
      d.contextTokens === c && d.concurrency === n;
    expect(scaled(30, at(1024, 8))).toBe(twin.meta.sigma.ttft); // 30 x its neighbours: a pause
    const half = (d: { contextTokens: number; concurrency: number }) =>
      d.contextTokens === 1024 && (d.concurrency === 4 || d.concurrency === 16);
    expect(scaled(1.7, half)).toBeGreaterThan(twin.meta.sigma.ttft * 1.3);
  });

  it("at the window's close, predicts between the first wave and the re-sends, and spans both", () => {
    const [far] = predict(twin.profile, twin.meta, { contexts: [1024], concurrency: [4] }).decode;
    expect((far!.prediction?.extrapolates ?? []).join()).not.toMatch(/window's close/);
    // A max output the twin's own rate ends right at the 5 s window's close.
    const edgeOutput = Math.round(far!.perRequestTokensPerS! * GRID.windowS);
    const [edge] = predict(twin.profile, twin.meta, {
      contexts: [1024],
      concurrency: [4],
      maxOutput: edgeOutput,
    }).decode;
    expect((edge!.prediction?.extrapolates ?? []).join()).toMatch(/end near the window's close/);
    // The engine itself, its requests 10% shorter (they complete and re-send) and 10% longer (they do not).
    const truth = (k: number) =>
      simulateCell(engine, {
        contextTokens: 1024,
        concurrency: 4,
        maxOutput: Math.round(edgeOutput * k),
        windowS: GRID.windowS,
      });
    const [done, wave] = [truth(0.9), truth(1.1)];
    expect(done.completed).toBeGreaterThan(0);
    expect(wave.completed).toBe(0);
    expect(wave.ttftMs!).toBeGreaterThan(done.ttftMs! * 1.2);
    const i = edge!.intervals!.ttftMs!;
    for (const t of [done.ttftMs!, wave.ttftMs!]) {
      expect(t).toBeGreaterThan(i.lo);
      expect(t).toBeLessThan(i.hi);
    }
    expect(edge!.ttftMs!).toBeGreaterThan(done.ttftMs!);
    expect(edge!.ttftMs!).toBeLessThan(wave.ttftMs!);
  });

  it('says what it does not know: a wave beyond the measured one, a p90 it never saw', () => {
    const wide = predict(twin.profile, twin.meta, { contexts: [1024], concurrency: [16, 128] });
    const [c16, c128] = wide.decode;
    expect(c128!.prediction?.extrapolates).toContain(
      "TTFT of 128 requests at once outside the measured 1–32: the API server's queue extrapolated",
    );
    const width = (c: typeof c16) => c!.intervals!.ttftMs!.hi / c!.intervals!.ttftMs!.lo;
    expect(width(c128)).toBeGreaterThan(width(c16));
    // Imported seeds carry one TTFT per cell: the p90 then comes with its reason and a wider interval.
    const noP90 = fitTwin(
      { ...obs, decode: obs.decode.map((d) => ({ ...d, ttftP90Ms: null })) },
      planOf(measured),
    );
    const [d16] = predict(noP90.profile, noP90.meta, { contexts: [1024], concurrency: [16] }).decode;
    expect(d16!.prediction?.extrapolates).toContain(
      'TTFT p90 not fitted: the fitted results carry one TTFT per cell',
    );
    const p90Width = (c: typeof c16) => c!.prediction!.ttftP90Ms!.hi / c!.prediction!.ttftP90Ms!.lo;
    expect(p90Width(d16)).toBeGreaterThan(p90Width(c16));
  });

  it('reports the share of cells it expects within tolerance, from its own misses', () => {
    const e = p.predicted!.expectedWithin!;
    for (const v of [e.totalTokensPerS, e.perRequestTokensPerS, e.ttftMs]) {
      expect(v).toBeGreaterThan(0.5);
      expect(v).toBeLessThanOrEqual(1);
    }
    expect(p.warnings.join('\n')).toMatch(/Expected from the fit's own misses .* TTFT within 25% on \d+%/);
  });
});

describe('judge', () => {
  const cell = (ttftMs: number, total: number) => ({
    contextTokens: 1024,
    concurrency: 4,
    status: 'Valid' as const,
    totalTokensPerS: total,
    perRequestTokensPerS: total / 4,
    ttftMs,
    tbtMs: 10,
    avgActive: 4,
    completed: 0,
    outputTokens: 1,
    measuredS: 30,
  });
  const result = (c: ReturnType<typeof cell>): RunResult => ({ ...measured, decode: [c] });

  it('counts TTFT within 25% and tok/s within 10%, and a 2% miss as neither over nor under', () => {
    const j = judge(result(cell(100, 1000)), result(cell(124, 1019)), new Set());
    expect(j.figures.ttft).toMatchObject({ judged: 1, within: 1, over: 1, under: 0 });
    expect(j.figures.total).toMatchObject({ judged: 1, within: 1, over: 0, under: 0 });
    const k = judge(result(cell(100, 1000)), result(cell(126, 880)), new Set());
    expect(k.figures.ttft.within).toBe(0);
    expect(k.figures.total).toMatchObject({ within: 0, under: 1 });
    expect(k.misses).toEqual(['1K × 4: total -12%', '1K × 4: per request -12%', '1K × 4: TTFT +26%']);
  });
});
