import { describe, expect, it } from 'vitest';
import { renderReport, REPORT_FORMATS } from '../../src/report/index.js';
import { RunResult } from '../../src/results/schema.js';
import { observe, selectObservations } from '../../src/twin/observe.js';
import { predict } from '../../src/twin/predict.js';
import { fitTwin } from '../../src/twin/twin.js';
import { demoMeasured, planOf } from './helpers.js';

const measured = demoMeasured();
const fitted = new Set(['1024x1', '1024x4', '1024x8', '1024x16', '8192x1', '8192x4', '8192x8']);
const obs = selectObservations(observe([{ result: measured, source: 'demo' }]), {
  decode: fitted,
  prefill: new Set([1024, 8192]),
});
const twin = fitTwin(obs, planOf(measured));

describe('predict', () => {
  const p = predict(twin.profile, twin.meta);

  it('names a context the max model length leaves out instead of dropping it silently', () => {
    const len = twin.profile.maxModelLen;
    const q = predict(twin.profile, twin.meta, { contexts: [1024, len] });
    expect(q.decode.every((c) => c.contextTokens === 1024)).toBe(true);
    const note = q.warnings.find((w) => w.includes('not predicted'));
    expect(note).toMatch(
      new RegExp(
        `context ${len.toLocaleString('en-US')} \\+ [\\d,]+ output tokens exceeds the server's max model length ${len.toLocaleString('en-US')}`,
      ),
    );
  });

  it('fills the whole matrix, marked predicted, with an interval around every figure', () => {
    expect(RunResult.parse(p).predicted?.twin).toBe(twin.profile.name);
    expect(p.decode).toHaveLength(measured.decode.length);
    for (const c of p.decode.filter((x) => x.status !== 'Over capacity')) {
      const i = c.intervals!.totalTokensPerS!;
      expect(i.lo).toBeLessThan(c.totalTokensPerS!);
      expect(i.hi).toBeGreaterThan(c.totalTokensPerS!);
    }
    expect(p.prefill.map((x) => x.contextTokens)).toEqual(measured.prefill.map((x) => x.contextTokens));
  });

  it('says where a what-if extrapolates, and widens its interval there', () => {
    const w = predict(twin.profile, twin.meta, {
      contexts: [1024],
      concurrency: [4, 64],
      kvCapacity: { factor: 8 },
    });
    const inside = w.decode.find((c) => c.concurrency === 4)!;
    const far = w.decode.find((c) => c.concurrency === 64)!;
    expect(inside.prediction?.extrapolates).toBeUndefined();
    // 64 requests queue behind maxNumSeqs 8 (pinned by 1K x 16), so the batch stays in the measured range ...
    expect(far.status).toBe('Requests queued');
    const more = predict(twin.profile, twin.meta, {
      contexts: [1024],
      concurrency: [64],
      maxNumSeqs: 64,
      kvCapacity: { factor: 8 },
    });
    // ... unless the what-if lets 64 run at once: 64 sequences is 3 doublings past the measured 8.
    const c64 = more.decode[0]!;
    expect(c64.prediction?.extrapolates?.[0]).toMatch(/64 running sequences outside the measured 1–8/);
    expect(more.warnings.join(' ')).toMatch(/Extrapolates: 64 running sequences/);
    const width = (c: typeof c64) => c.intervals!.totalTokensPerS!.hi / c.intervals!.totalTokensPerS!.lo;
    expect(width(c64)).toBeGreaterThan(width(inside) * 1.2);
    expect(more.predicted?.whatIf).toMatchObject({ maxNumSeqs: 64 });
  });

  it('without a queued cell, predicts every request running and names the other status', () => {
    const calm = selectObservations(observe([{ result: measured, source: 'demo' }]), {
      decode: new Set(['1024x1', '1024x4', '1024x8', '8192x1', '8192x4']),
      prefill: new Set([1024]),
    });
    const t = fitTwin(calm, planOf(measured));
    const [c16] = predict(t.profile, t.meta, { contexts: [1024], concurrency: [16] }).decode;
    expect(c16!.status).toBe('Valid');
    expect(c16!.avgActive).toBeGreaterThan(15);
    expect(c16!.prediction?.otherStatus).toBe('Requests queued');
    expect(c16!.prediction?.extrapolates).toEqual([
      '16 running sequences outside the measured 1–8',
      'concurrency 16 above 8, the most that ran unqueued: predicted as if the server runs all 16 at once (its max sequences is unknown)',
      "TTFT of 16 requests at once outside the measured 1–8: the API server's queue extrapolated",
    ]);
  });

  it('moves Over capacity with a KV what-if', () => {
    const before = p.decode.filter((c) => c.status === 'Over capacity').length;
    const bigger = predict(twin.profile, twin.meta, { kvCapacity: { factor: 1.5 } });
    expect(bigger.decode.filter((c) => c.status === 'Over capacity').length).toBeLessThan(before);
  });

  it('renders in every report format, labelled predicted', () => {
    for (const f of REPORT_FORMATS) {
      const text = renderReport(p, f, { width: 100, color: false });
      expect(text, f).toMatch(f === 'csv' ? /\r\nSustained decode \(predicted\),/ : /Predicted/);
    }
  });
});
