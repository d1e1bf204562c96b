import { describe, expect, it } from 'vitest';
import { RESTART_LOSS } from '../../src/twin/restart-loss.js';
import { judge } from './judge.js';
import { observe } from '../../src/twin/observe.js';
import { predict } from '../../src/twin/predict.js';
import { simulatedResult } from './sim-result.js';
import { fitTwin } from '../../src/twin/twin.js';
import { DEMO_GRID, demoProfile, planOf } from './helpers.js';

// A measuring client that idles between a request's end and the slot's next send (v0.6.2 preparing each
// prompt): the engine is the same, only the window loses the idle time. The twin must learn it from total vs
// per-request tok/s and predict with it; a client with no gap must not get one.
const GAP_MS_PER_M = 120_000; // 0.98 s at 8K, 0.12 s at 1K

const gapName = RESTART_LOSS;

describe('client re-send gap', () => {
  it('is learnt from a client that idles per restart, and the prediction keeps it', () => {
    const measured = simulatedResult(demoProfile(), { ...DEMO_GRID, restartLossMsPerMTokens: GAP_MS_PER_M });
    const twin = fitTwin(observe([{ result: measured, source: 'gap' }]), planOf(measured));
    expect(twin.meta.restartLossMsPerMTokens).toBeGreaterThan(GAP_MS_PER_M * 0.8);
    expect(twin.meta.restartLossMsPerMTokens).toBeLessThan(GAP_MS_PER_M * 1.2);
    expect(twin.params.find((p) => p.name === gapName)?.value).toMatch(/s per million prompt tokens/);
    const j = judge(measured, predict(twin.profile, twin.meta), new Set());
    expect(j.figures.total.within).toBe(j.figures.total.judged);
  });

  it('the same engine measured without the gap: total tok/s differs, so the gap is what the fit explains', () => {
    const withGap = simulatedResult(demoProfile(), { ...DEMO_GRID, restartLossMsPerMTokens: GAP_MS_PER_M });
    const without = simulatedResult(demoProfile(), DEMO_GRID);
    const at = (r: typeof without) => r.decode.find((c) => c.contextTokens === 8192 && c.concurrency === 1)!;
    expect(at(withGap).totalTokensPerS!).toBeLessThan(at(without).totalTokensPerS! * 0.95);
    expect(at(withGap).perRequestTokensPerS! / at(without).perRequestTokensPerS!).toBeCloseTo(1, 1);
  });

  it('stays 0 for a client that re-sends at once', () => {
    const measured = simulatedResult(demoProfile(), DEMO_GRID);
    const twin = fitTwin(observe([{ result: measured, source: 'no-gap' }]), planOf(measured));
    expect(twin.meta.restartLossMsPerMTokens).toBe(0);
    expect(twin.params.find((p) => p.name === gapName)?.value).toBe('0');
  });
});
