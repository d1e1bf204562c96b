import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cellKey } from '../../src/cell-rules.js';
import { importV062Text } from '../../src/results/import-v062.js';
import { planOfResult, twinSubset } from '../../src/twin/choose.js';
import { observe } from '../../src/twin/observe.js';
import { predict } from '../../src/twin/predict.js';
import { fitTwin } from '../../src/twin/twin.js';
import { judge } from './judge.js';

// A twin judged against a real server, not against the sim engine it runs on itself (that round trip is
// test/twin/fit.test.ts, against the generating profile's known parameters). Integration tier: the fit alone
// takes about 10 s of CPU.
describe('predict, against a real run', () => {
  it('predicts the cells the RTX PRO 6000 seed ran that it did not see: tok/s within 10%, every status', () => {
    const seed = importV062Text(
      readFileSync(new URL('../fixtures/seeds/000_9816ff1652ee407d.txt', import.meta.url), 'utf8'),
    );
    // Fit on the cells plan --for-twin picks (as a user would), predict the contexts up to 64K.
    const seen = twinSubset(observe([{ result: seed, source: 'seed' }]), seed);
    const twin = fitTwin(seen, planOfResult(seed));
    const contexts = [8192, 16384, 32768, 65536];
    const p = predict(twin.profile, twin.meta, { contexts });
    const fitted = new Set(seen.decode.map((d) => cellKey(d.contextTokens, d.concurrency)));
    const j = judge(seed, p, fitted);
    // The seed ran 8 concurrencies (1..128) at each of these 4 contexts; the fit saw the 8K row.
    expect(seed.decode.filter((c) => contexts.includes(c.contextTokens))).toHaveLength(32);
    expect(j.cells).toBe(32 - seen.decode.filter((d) => contexts.includes(d.contextTokens)).length);
    expect(j.cells).toBeGreaterThanOrEqual(24);
    expect(j.figures.total.judged).toBeGreaterThan(10);
    expect(j.figures.total.within / j.figures.total.judged).toBeGreaterThanOrEqual(0.9);
    expect(j.figures.perRequest.within / j.figures.perRequest.judged).toBeGreaterThanOrEqual(0.9);
    expect(j.statusRight).toBe(j.cells);
  });
});
