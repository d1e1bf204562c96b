import { describe, expect, it } from 'vitest';
import { buildPlan } from '../../src/plan/plan.js';
import { estimateDuration } from '../../src/plan/estimate.js';
import { fitPrefillModel, prefillSeconds, priorPrefillModel } from '../../src/plan/prefill-model.js';
import {
  addPrefillSample,
  etaSeconds,
  finishStep,
  predictPrefillS,
  startEta,
  stepKey,
} from '../../src/progress/eta.js';

const plan = buildPlan({
  contexts: [1024, 2048],
  concurrency: [1, 2, 4],
  maxOutput: 512,
  maxModelLen: 16384,
});
const est = estimateDuration(plan, { duration: 3, prefillRepeats: 1, prefill: { a: 1 / 40_000, b: 0 } });

describe('live ETA', () => {
  it('counts down inside a cell, holds when the cell overruns, and never climbs before the cell ends', () => {
    let st = startEta(est.steps, { a: 1 / 40_000, b: 0 }, 0);
    st = finishStep(st, stepKey('prefill', 1024), 100);
    const seen: number[] = [];
    for (let t = 100; t <= 6100; t += 250) seen.push(etaSeconds(st, t)); // the 1K x1 cell takes 6 s, not 3.3
    for (let i = 1; i < seen.length; i++) expect(seen[i]!).toBeLessThanOrEqual(seen[i - 1]! + 1e-9);
    expect(seen[0]! - seen[4]!).toBeCloseTo(1, 6); // one second of the cell's estimate spent
    expect(seen[seen.length - 1]).toBeCloseTo(seen[seen.length - 2]!, 9); // overran: flat, not climbing
  });

  it('corrects the remaining cells by what the finished ones took', () => {
    let st = startEta(est.steps, { a: 1 / 40_000, b: 0 }, 0);
    const first = etaSeconds(st, 0);
    st = finishStep(st, stepKey('prefill', 1024), 0);
    st = finishStep(st, stepKey('cell', 1024, 1), 5000); // 5 s instead of about 3.3
    const perCell = est.steps.find((s) => s.kind === 'cell')!.estimateS;
    const left = etaSeconds(st, 5000);
    // Five cells left, each about 1.7 s longer than planned, plus the 16K point.
    expect(left).toBeGreaterThan(5 * (perCell + 1.6));
    expect(left).toBeLessThan(5 * (perCell + 1.8) + 1);
    expect(first).toBeCloseTo(est.totalS, 6);
  });

  it('predicts the full-window point from the first two prefill points', () => {
    const truth = { a: 2e-4, b: 2e-8 }; // a slow host: 32K costs about 28 s
    const steps = estimateDuration(
      buildPlan({ contexts: [4096, 8192], concurrency: [1], maxOutput: 512, maxModelLen: 32768 }),
      { duration: 3, prefillRepeats: 1, engine: 'vllm' },
    ).steps;
    let st = startEta(steps, priorPrefillModel('vllm'), 0);
    const full = 32768 - 256;
    const before = predictPrefillS(st, full);
    for (const l of [4096, 8192]) st = addPrefillSample(st, { tokens: l, seconds: prefillSeconds(truth, l) });
    expect(before).toBeLessThan(prefillSeconds(truth, full) / 3); // the GPU prior knew nothing of this host
    expect(predictPrefillS(st, full)).toBeCloseTo(prefillSeconds(truth, full), 6);
  });

  // A run's first prefill point: three repeats a few tokens apart (the sim at 8K, 46-48 ms). A line through them
  // put the 1M-token full window at 771 s (the sim took 6.4 s) and the live ETA at 40 min for a 1 min run.
  it('points of one length scale the prior: their few tokens apart are noise, not a slope', () => {
    const prior = priorPrefillModel('vllm');
    const m = fitPrefillModel(
      [
        { tokens: 8193, seconds: 0.048131 },
        { tokens: 8198, seconds: 0.047257 },
        { tokens: 8192, seconds: 0.04595 },
      ],
      prior,
    );
    // the prior scaled by measured / prior at 8K: 0.1413 s / (3 x 8,194 tokens at the prior's ~10,000 tok/s)
    const k =
      (0.048131 + 0.047257 + 0.04595) / [8193, 8198, 8192].reduce((t, n) => t + prefillSeconds(prior, n), 0);
    expect(prefillSeconds(m, 1_048_320)).toBeCloseTo(k * prefillSeconds(prior, 1_048_320), 6);
    expect(prefillSeconds(m, 1_048_320)).toBeLessThan(10); // the sim's 1M prefill took 6.4 s
    expect(prefillSeconds(m, 1_048_320)).toBeGreaterThan(3);
  });

  it('fits one point by scaling the prior and never returns negative coefficients', () => {
    const prior = { a: 1e-4, b: 1e-9 };
    const one = fitPrefillModel([{ tokens: 1000, seconds: 0.202 }], prior);
    expect(prefillSeconds(one, 1000)).toBeCloseTo(0.202, 9);
    const falling = fitPrefillModel(
      [
        { tokens: 1000, seconds: 0.1 },
        { tokens: 8000, seconds: 0.4 },
      ],
      prior,
    );
    expect(falling.a).toBeGreaterThanOrEqual(0);
    expect(falling.b).toBe(0);
    expect(prefillSeconds(falling, 8000)).toBeGreaterThan(0.4 * 0.5);
  });
});
