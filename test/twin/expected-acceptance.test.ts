import { describe, expect, it } from 'vitest';
import { observe, selectObservations } from '../../src/twin/observe.js';
import { predict } from '../../src/twin/predict.js';
import { fitTwin } from '../../src/twin/twin.js';
import { demoMeasured, planOf } from './helpers.js';

const measured = demoMeasured();
const twin = fitTwin(
  selectObservations(observe([{ result: measured, source: 'demo' }]), {
    decode: new Set(['1024x1', '1024x4', '1024x8', '1024x16', '8192x1', '8192x4', '8192x8']),
    prefill: new Set([1024, 8192]),
  }),
  planOf(measured),
);

// One window's speculative draws move a cell's rate 2-3% either way; a prediction is the expectation
// (docs/twin.md "Speculative draws"): mean tokens per step over the step time, whatever the draws.
describe('predict: tok/s at the expected speculative acceptance', () => {
  it('one request decodes mean tokens per step, each step at the fitted time for its context', () => {
    const p = predict(twin.profile, twin.meta, { contexts: [1024], concurrency: [1] });
    const c = p.decode[0]!;
    const { speculative, decodeStepMs, decodeContextSlopeMsPerMTokens: slope } = twin.profile;
    const step1 = decodeStepMs.find(([b]) => b === 1)![1];
    // The batch's context: the 1K prompt plus, on average over the request, half its 512 output tokens.
    const stepMs = step1 + (slope * (1024 + 256)) / 1e6;
    const expected = (speculative!.meanTokens * 1000) / stepMs;
    expect(Math.abs(c.perRequestTokensPerS! / expected - 1)).toBeLessThan(0.005);
    // The measured cell drew its own acceptance: the prediction is not pulled to it.
    const m = measured.decode.find((d) => d.contextTokens === 1024 && d.concurrency === 1)!;
    expect(m.perRequestTokensPerS).not.toBe(c.perRequestTokensPerS);
  });
});
