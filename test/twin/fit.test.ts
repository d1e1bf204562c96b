import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { BenchError } from '../../src/errors.js';
import { validateProfile } from '../../src/sim/profiles.js';
import { observe, selectObservations } from '../../src/twin/observe.js';
import { fitTwin } from '../../src/twin/twin.js';
import { twinYaml } from '../../src/twin/twin-file.js';
import { demoMeasured, demoProfile, planOf } from './helpers.js';

const measured = demoMeasured();
const obs = observe([{ result: measured, source: 'demo' }]);
const plan = planOf(measured);

function refusal(fn: () => unknown): BenchError {
  try {
    fn();
  } catch (e) {
    if (e instanceof BenchError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('fit', () => {
  const twin = fitTwin(obs, plan);

  it('recovers the hidden engine parameters the method can see', () => {
    const truth = demoProfile();
    const spec = truth.speculative!.meanTokens;
    expect(twin.profile.maxNumSeqs).toBe(truth.maxNumSeqs);
    expect(twin.profile.kvCapacityTokens).toBe(truth.kvCapacityTokens);
    // The result carries the server's acceptance counters (as vLLM's metrics give them): whole engine steps.
    expect(twin.profile.speculative!.meanTokens).toBeGreaterThan(spec * 0.97);
    expect(twin.profile.speculative!.meanTokens).toBeLessThan(spec * 1.03);
    for (const [b, ms] of truth.decodeStepMs) {
      const fitted = twin.profile.decodeStepMs.find((p) => p[0] === b)![1];
      expect(fitted).toBeGreaterThan(ms * 0.97);
      expect(fitted).toBeLessThan(ms * 1.06);
    }
    // The slope moves a demo step by at most 1.3 ms (8 x 8K tokens), under each cell's own speculative-draw noise
    // in 5 s windows: the fit must hold the truth within three of the standard errors it reports.
    const slope = twin.profile.decodeContextSlopeMsPerMTokens;
    const se = Number(
      /± ([\d.]+)/.exec(twin.params.find((p) => p.name === 'decode context slope')!.quality)![1],
    );
    expect(se).toBeLessThan(truth.decodeContextSlopeMsPerMTokens / 2);
    expect(Math.abs(slope - truth.decodeContextSlopeMsPerMTokens)).toBeLessThan(3 * se);
  });

  it("reads a cell's lucky acceptance as more tokens per step, not a faster step", () => {
    const step = (o: typeof obs, b: number) =>
      fitTwin(o, plan).profile.decodeStepMs.find((p) => p[0] === b)![1];
    const at = (d: (typeof obs.decode)[number]) => d.contextTokens === 1024 && d.concurrency === 4;
    const faster = (k: number, acceptance: boolean) => ({
      ...obs,
      decode: obs.decode.map((d) =>
        at(d)
          ? {
              ...d,
              perRequestTokensPerS: d.perRequestTokensPerS! * k,
              specAcceptanceLength: acceptance ? d.specAcceptanceLength! * k : d.specAcceptanceLength,
            }
          : d,
      ),
    });
    const base = step(obs, 4);
    // 8% faster with the same acceptance: a shorter step at 4 sequences.
    expect(step(faster(1.08, false), 4)).toBeLessThan(base * 0.98);
    // 8% faster because its drafts were accepted 8% more: the same step.
    expect(Math.abs(step(faster(1.08, true), 4) / base - 1)).toBeLessThan(0.005);
  });

  it('reports a residual for every measured cell and reproduces them within a few percent', () => {
    expect(twin.residuals).toHaveLength(measured.decode.length);
    for (const r of twin.residuals) {
      expect(r.twinStatus).toBe(r.measuredStatus);
      // Each cell (measured and twin) draws its own speculative steps: 5 s windows differ by up to ~5%.
      if (r.measuredStatus === 'Valid') expect(Math.abs(r.total[1]! / r.total[0]! - 1)).toBeLessThan(0.05);
    }
    expect(twin.params.map((p) => p.name)).toContain('decode context slope');
  });

  it('writes a profile that the sim loads as it is, twice the same', () => {
    const text = twinYaml(twin);
    expect(text).toBe(twinYaml(fitTwin(obs, plan)));
    const loaded = validateProfile(parseYaml(text), 'twin');
    expect(loaded.decodeStepMs).toEqual(twin.profile.decodeStepMs);
    expect(loaded.twin).toBeDefined();
  });

  it('brackets the KV capacity from the statuses when the server did not report it', () => {
    const noCap = { ...obs, kvCapacityTokens: undefined };
    const t = fitTwin(noCap, plan);
    // Largest demand that ran: 2K x 16 queued = 16 x (2,048 + 512) = 40,960 tokens; smallest over capacity:
    // 8K x 8 = 8 x (8,192 + 512) = 69,632. The true 65,536 lies between.
    expect(t.meta.kvCapacity).toEqual({ lo: 40960, hi: 69632, source: 'statuses' });
    expect(t.profile.kvCapacityTokens).toBe(Math.round(Math.sqrt(40960 * 69632)));
  });

  it('refuses, naming cells, when one concurrency level cannot pin the batch curve', () => {
    const one = selectObservations(obs, { decode: new Set(['1024x1', '8192x1']), prefill: new Set([1024]) });
    const e = refusal(() => fitTwin(one, plan));
    expect(e.message).toMatch(/cannot pin decode step time against batch size/);
    expect(e.message).toContain('1K × 1, 8K × 1');
    expect(e.hint).toMatch(/second concurrency level, e\.g\. 1K × 16/);
  });

  it('refuses the context slope from one context unless told, then fits', () => {
    const one = selectObservations(obs, { decode: new Set(['1024x1', '1024x4']), prefill: new Set([1024]) });
    const e = refusal(() => fitTwin(one, plan));
    expect(e.message).toMatch(/no concurrency level was measured at two contexts/);
    expect(e.hint).toContain('--context-slope 0');
    expect(fitTwin(one, plan, { contextSlopeMsPerMTokens: 0 }).profile.decodeContextSlopeMsPerMTokens).toBe(
      0,
    );
  });

  it('refuses the KV capacity when nothing bounds it from above, naming a cell that would', () => {
    const under = selectObservations(
      { ...obs, kvCapacityTokens: undefined },
      { decode: new Set(['1024x1', '1024x4', '8192x1', '8192x4']), prefill: new Set([1024]) },
    );
    const e = refusal(() => fitTwin(under, plan));
    expect(e.message).toMatch(/cannot pin the KV capacity.*at least 34,816 tokens at 8K × 4/);
    // The next planned level above the largest that ran (the demo grid's 1, 2, 4, 8, 16), not a guess.
    expect(e.hint).toMatch(/--kv-capacity TOKENS.*8K × 8, the next level, is recorded Over capacity/);
    expect(fitTwin(under, plan, { kvCapacityTokens: 60000 }).profile.kvCapacityTokens).toBe(60000);
  });

  it('keeps max sequences as a lower bound when no cell queued', () => {
    const calm = selectObservations(obs, {
      decode: new Set(['1024x1', '1024x4', '1024x8', '8192x1', '8192x4', '8192x8']),
      prefill: new Set([1024]),
    });
    const t = fitTwin(calm, plan);
    expect(t.meta.maxNumSeqs).toEqual({ value: 8, pinned: false });
    expect(t.params.find((p) => p.name === 'max running sequences')!.from).toMatch(
      /1K × 8 ran unqueued; a cell above it \(e\.g\. 1K × 16\) would pin it/,
    );
  });

  it('refuses results of different servers, naming what differs; GPUs count only where both runs know them', () => {
    const other = (over: { model?: string; engine?: string; gpu?: [string, number] | null }) => {
      const r = demoMeasured();
      return {
        ...r,
        runId: 'other',
        target: { ...r.target, model: over.model ?? r.target.model },
        engine: { ...r.engine, name: over.engine ?? r.engine.name },
        hardware:
          over.gpu === null
            ? {}
            : over.gpu
              ? { ...r.hardware, gpuName: over.gpu[0], gpuCount: over.gpu[1] }
              : r.hardware,
      };
    };
    const a = { result: { ...measured, hardware: { gpuName: 'H200 SXM', gpuCount: 4 } }, source: 'a' };
    const engine = refusal(() =>
      observe([a, { result: other({ engine: 'sglang', gpu: ['H200 SXM', 4] }), source: 'b' }]),
    );
    expect(engine.code).toBe('USAGE');
    expect(engine.message).toBe(
      `these results are of different servers (engine ${measured.engine.name} vs sglang: a vs b); fit one server's runs.`,
    );
    const gpu = refusal(() => observe([a, { result: other({ gpu: ['H200 SXM', 8] }), source: 'b' }]));
    expect(gpu.message).toContain('(GPU 4 × H200 SXM vs 8 × H200 SXM: a vs b)');
    // the same model and engine, one run without hardware: the same server as far as anyone can tell
    expect(observe([a, { result: other({ gpu: null }), source: 'b' }]).decode).toHaveLength(
      2 * obs.decode.length,
    );
  });
});
