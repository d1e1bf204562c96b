import { describe, expect, it } from 'vitest';
import { chooseTwinCells } from '../../src/twin/choose.js';

const K = 1024;
const contexts = [8, 16, 32, 64, 128, 256, 512, 1019].map((k) => k * K);
const concurrency = [1, 2, 4, 8, 16, 32, 64, 128];
const prefill = [...contexts, 1024 * K - 256];
const capacity = (kv: number) => (c: number, n: number) => n * (c + 4096) <= kv;
const names = (cells: Array<{ contextTokens: number; concurrency: number; fits: boolean }>) =>
  cells.map((c) => `${c.contextTokens / K}Kx${c.concurrency}${c.fits ? '' : '(over)'}`);

describe('chooseTwinCells', () => {
  it('measures every level at the first context, and brackets the capacity at a middle and the last', () => {
    const ch = chooseTwinCells(contexts, concurrency, prefill, capacity(3_000_000));
    expect(names(ch.cells)).toEqual([
      '8Kx1',
      '8Kx2',
      '8Kx4',
      '8Kx8',
      '8Kx16',
      '8Kx32',
      '8Kx64',
      '8Kx128',
      '128Kx1',
      '128Kx16',
      '128Kx32(over)',
      '1019Kx1',
      '1019Kx2',
      '1019Kx4(over)',
    ]);
    expect(ch.cells.filter((c) => c.fits)).toHaveLength(12);
    expect(ch.prefillContexts).toEqual([8 * K, 128 * K, 1024 * K - 256]);
  });

  it('stops the first context at the largest level that fits, recording the next one over', () => {
    const ch = chooseTwinCells(contexts, concurrency, prefill, capacity(600_000));
    // 8K: 600K / 12,288 = 48 requests fit, so 32 is the last level run and 64 the bound.
    expect(names(ch.cells).filter((n) => n.startsWith('8Kx'))).toEqual([
      '8Kx1',
      '8Kx2',
      '8Kx4',
      '8Kx8',
      '8Kx16',
      '8Kx32',
      '8Kx64(over)',
    ]);
  });

  it('takes the lowest two levels at a middle and the last context where the capacity is unknown', () => {
    const ch = chooseTwinCells(contexts, concurrency, prefill, () => undefined);
    expect(names(ch.cells).filter((n) => !n.startsWith('8Kx'))).toEqual([
      '128Kx1',
      '128Kx2',
      '1019Kx1',
      '1019Kx2',
    ]);
    expect(names(ch.cells).filter((n) => n.startsWith('8Kx'))).toHaveLength(8);
  });
});

describe('plan --for-twin', () => {
  it('asks for one short run per context and a fit of them, passing the capacity it knows', async () => {
    const { buildPlan } = await import('../../src/plan/plan.js');
    const { twinRuns, forTwinText } = await import('../../src/twin/for-twin.js');
    const plan = buildPlan({ maxModelLen: 1024 * K, kvCapacityTokens: 3_400_000, maxOutput: 4096 });
    // 3.4M: 128K x 16 = 2.16M fits, 128K x 32 = 4.3M does not; 1019K x 2 = 2.1M fits, x 4 = 4.2M does not.
    expect(twinRuns(plan).runs).toEqual([
      { contextTokens: 8 * K, concurrency: [1, 2, 4, 8, 16, 32, 64, 128] },
      { contextTokens: 128 * K, concurrency: [1, 16, 32] },
      { contextTokens: 1019 * K, concurrency: [1, 2, 4] },
    ]);
    const text = forTwinText(plan, { duration: 10, prefillRepeats: 1 });
    expect(text).toContain(
      '12 cells to measure in 3 short runs (their --concurrency also names 2 levels over capacity, recorded without running), then fit:',
    );
    expect(text).toContain(
      '--contexts 128K --prefill-contexts 128K --concurrency 1,16,32 --max-output 4096 --duration 10 --kv-capacity 3400000',
    );
    expect(text).toContain('fit twin-run-1 twin-run-2 twin-run-3 -o twin.yaml');
  });

  // A 5 x 7 matrix asked for 13 levels where docs/twin.md promised at most 12 cells, and did not say that its
  // short runs took 121 s of the whole matrix's 258 s. The promise counts the cells measured (at most the levels
  // + 4: every level at the smallest context, two at a middle and at the largest); the levels over capacity are
  // recorded without running. The estimate is said beside the whole matrix's.
  it('measures at most the levels + 4 cells, names the levels only recorded, and the share of the whole matrix', async () => {
    const { buildPlan } = await import('../../src/plan/plan.js');
    const { estimateDuration } = await import('../../src/plan/estimate.js');
    const { twinRecipe, forTwinText } = await import('../../src/twin/for-twin.js');
    const concurrency = [1, 2, 4, 8, 16, 32, 64];
    const plan = buildPlan({ maxModelLen: 128 * K, kvCapacityTokens: 512 * K, maxOutput: 256, concurrency });
    expect(plan.contexts).toHaveLength(5);
    // 8K x 64 = 540,672 tokens > 524,288: 8K runs 1-32 and records 64; 32K runs 1 and 8 (16 over), 126K 1 and 4.
    const r = twinRecipe(plan, { duration: 3, prefillRepeats: 3 });
    expect(r.runs.map((x) => x.concurrency)).toEqual([
      [1, 2, 4, 8, 16, 32, 64],
      [1, 8, 16],
      [1, 4, 8],
    ]);
    expect([r.cellsMeasured, r.cellsOverCapacity]).toEqual([10, 3]);
    const whole = estimateDuration(plan, { duration: 3, prefillRepeats: 3 }).totalS;
    expect(r.fullEstimateS).toBe(whole);
    expect(r.estimateS).toBeLessThan(whole);
    const share = Math.round((100 * r.estimateS) / whole);
    const text = forTwinText(plan, { duration: 3, prefillRepeats: 3 }).replace(/\s+/g, ' ');
    expect(text).toContain(
      '10 cells to measure in 3 short runs (their --concurrency also names 3 levels over capacity, recorded without running), then fit:',
    );
    expect(text).toMatch(
      new RegExp(`of server time, ${share}% of the \\S+ (s|min) the whole matrix \\(21 cells\\) takes`),
    );
    expect(share).toBeGreaterThanOrEqual(50);
    expect(text).toContain('measuring the whole matrix (plan without --for-twin) costs');
    // The promise, over maxima of capacity and output: never more than the levels + 4 cells measured.
    for (const kv of [undefined, 64 * K, 512 * K, 4096 * K])
      for (const maxOutput of [256, 4096]) {
        const p = buildPlan({ maxModelLen: 1024 * K, ...(kv ? { kvCapacityTokens: kv } : {}), maxOutput });
        expect(twinRecipe(p, { duration: 10, prefillRepeats: 1 }).cellsMeasured).toBeLessThanOrEqual(12);
      }
  });

  it('without a capacity, asks for the lowest two levels and says how to do better', async () => {
    const { buildPlan } = await import('../../src/plan/plan.js');
    const { twinRuns, forTwinText } = await import('../../src/twin/for-twin.js');
    const plan = buildPlan({ maxModelLen: 1024 * K, maxOutput: 4096 });
    expect(twinRuns(plan).runs.slice(1)).toEqual([
      { contextTokens: 128 * K, concurrency: [1, 2] },
      { contextTokens: 1019 * K, concurrency: [1, 2] },
    ]);
    const text = forTwinText(plan, { duration: 10, prefillRepeats: 1 });
    expect(text).not.toContain('--kv-capacity 3');
    expect(text).toContain(
      'The KV capacity is unknown, so the middle and largest contexts take their lowest two levels',
    );
  });

  it('predicts the full default matrix when fitted on several short runs', async () => {
    const { planOfResults } = await import('../../src/twin/choose.js');
    const { demoMeasured } = await import('./helpers.js');
    const a = demoMeasured();
    const b = { ...a, config: { ...a.config, contexts: [4096], concurrency: [3] } };
    const plan = planOfResults([a, b]);
    expect(plan.concurrency).toEqual([1, 2, 3, 4, 8, 16, 32, 64, 128]);
    // The measured contexts plus docs/method.md's default list ("Plan") for max length 16K and max output 512: 8K, then
    // the largest that fits, floor((16,384 - 512 - 1,024) / 1,024) K = 14K.
    expect(plan.contexts).toEqual([1024, 2048, 4096, 8192, 14336]);
  });
});
