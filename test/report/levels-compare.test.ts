import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { compareModel } from '../../src/report/compare-model.js';
import { allVerdicts } from '../../src/report/compare-verdicts.js';
import { renderCompare } from '../../src/report/index.js';
import { stripAnsi } from '../../src/report/text.js';
import type { RunResult } from '../../src/results/schema.js';
import { levelsResult, levelsResultB, PREFIX_ROW } from '../helpers/level-results.js';

// compare with load levels (docs/workloads.md "Reports"): verdicts per level as per cell, the same row at the same
// rate, for goodput, TTFT p50 and p90, E2E p50 and output tok/s from the stored intervals; the answers in requests
// per second side by side; --fail-on counts a level's significant slowdown, never one a client shaped.
//
// B against A at 8K 2 req/s (test/helpers/level-results.ts), on the log scale with z95 = 1.96, z99 = 2.576:
//  - TTFT p50 450 ms (432-468) against 585 ms (561.6-608.4): each side's standard error ln(1.0833) / 3.92 = 0.0204,
//    together 0.0289; ln(585 / 450) = 0.262 > 2.576 x 0.0289 = 0.074: slower, 1 - 450/585 = 23%.
//  - goodput 118 / 60 = 1.97 req/s (Wilson 94.1-99.5% of 120 over 60 s: 1.88-1.99) against 100 / 60 = 1.67
//    (75.7-89.0%: 1.51-1.78): errors 0.0143 and 0.0413, together 0.0437; ln(1.67 / 1.97) = -0.166, past 0.113:
//    slower by 15%.
const a = levelsResult();
const b = levelsResultB();
const verdict = (where: string, figure: string) =>
  allVerdicts(compareModel([a, b]))[0]!.verdicts.find((v) => v.where === where && v.figure === figure)!;

function writeResults(...rs: RunResult[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'level-verdicts-'));
  return rs.map((r, i) => {
    const p = join(dir, `${i}.json`);
    writeFileSync(p, JSON.stringify(r));
    return p;
  });
}

describe('compare with load levels', () => {
  afterEach(() => vi.restoreAllMocks());

  it('judges each level both runs measured, figure by figure, from the stored intervals', () => {
    const ttft = verdict('8K at 2 req/s', 'TTFT p50');
    expect(ttft.comparison.verdict).toBe('slower');
    expect(ttft.comparison.change).toBeCloseTo(450 / 585 - 1, 10);
    const goodput = verdict('8K at 2 req/s', 'goodput');
    expect([goodput.a, goodput.b]).toEqual([118 / 60, 100 / 60]);
    expect(goodput.comparison.verdict).toBe('slower');
    expect(goodput.comparison.change).toBeCloseTo(100 / 118 - 1, 10);
    // 3.08 req/s on the shared prefix: 520 ms against 470 ms, as far apart the other way: faster
    expect(verdict('shared-prefix at 3.08 req/s', 'TTFT p50').comparison.verdict).toBe('faster');
    expect(verdict('8K at 2 req/s', 'E2E p50').comparison.verdict).toBe('no significant difference');
    // A Failed level (8K at 8 req/s) is not compared; the Client-bound one (A at 8 req/s) is, but is not the server's
    expect(allVerdicts(compareModel([a, b]))[0]!.verdicts.some((v) => v.where === '8K at 8 req/s')).toBe(
      false,
    );
    expect(verdict('shared-prefix at 8 req/s', 'TTFT p50').notServer?.short).toBe(
      "A's client fell behind its schedule",
    );
  });

  it('says the verdicts and the answers in requests per second side by side', () => {
    const txt = stripAnsi(renderCompare([a, b], 'txt', { width: 80 }));
    for (const line of txt.split('\n')) expect([...line].length, line).toBeLessThanOrEqual(80);
    expect(txt).toContain(
      '  Requests per second (arrivals at a rate), beside the users at once:\n' +
        '  8K     A: 2 req/s (3 too close to call)\n' +
        '         B: 1 req/s (2 fails)\n' +
        `  ${PREFIX_ROW}\n` +
        '         A: 3.08 req/s (3.36 fails; 8 req/s client-bound)\n' +
        '         B: 3.08 req/s (3.36 fails)',
    );
    // 4 cells and 14 levels both measured (8K at 8 req/s failed in both): 5 figures each but the goodput of the
    // Client-bound level, which is not judged: 4 + 14 x 5 - 1 = 73; 4 significant, 1 not the server's.
    expect(txt).toContain("B vs A: 1 faster, 3 slower, 68 no significant difference, 1 not the server's");
    expect(txt).toContain('    8K at 2 req/s: B is 23% ± 4% slower than A (TTFT p50)');
    expect(txt).toContain('    8K at 2 req/s: B is 15% ± 7% slower than A (goodput)');
    // (0.847 x 0.769 x 0.643 x 1.106)^(1/4): goodput, the TTFTs of 8K and 3.08 req/s turned over
    expect(txt.replace(/\s+/g, ' ')).toContain(
      'Geometric mean of the significant ratios B/A (latencies as A/B, so above 1 is better): 0.825× over 4 measurements.',
    );
    const md = renderCompare([a, b], 'md');
    expect(md).toContain('| 8K at 2 req/s | goodput | 1.97 req/s | 1.67 req/s | −15% ± 7.3% | slower |');
    expect(md).toContain(
      `| ${PREFIX_ROW} | 3.08 req/s (3.36 fails; 8 req/s client-bound) | 3.08 req/s (3.36 fails) |`,
    );
    const html = renderCompare([a, b], 'html');
    expect(html).toContain('<table class="data answer" id="compare-rates">');
    expect(html).toContain('<td data-label="B">1 req/s (2 fails)</td>');
  });

  it('--slo judges the goodput and the answers under that level', () => {
    // Within 500 ms A's 2 req/s still met it (450 ms) and B's did not (585 ms): 118 of 120 against none
    const strict = allVerdicts(compareModel([a, b]), { ttftMs: 500, share: 0.9 })[0]!;
    const g = strict.verdicts.find((v) => v.where === '8K at 2 req/s' && v.figure === 'goodput')!;
    // B's 0 of 120 (Wilson 0-3.1%, 0-0.062 req/s) lies below A's 1.88-1.99 req/s: all of it lost, certainly
    expect([g.a, g.b]).toEqual([118 / 60, 0]);
    expect(g.comparison).toMatchObject({ verdict: 'slower', change: -1 });
    // The other way round A has none: no ratio, not judged, and said so
    const back = allVerdicts(compareModel([b, a]), { ttftMs: 500, share: 0.9 })[0]!;
    expect(back.verdicts.find((v) => v.where === '8K at 2 req/s' && v.figure === 'goodput')).toMatchObject({
      comparison: { verdict: 'no interval' },
      why: 'A had none: no ratio',
    });
    const txt = stripAnsi(renderCompare([a, b], 'txt', { width: 80, slo: { ttftMs: 500, share: 0.9 } }));
    expect(txt).toContain('  8K     A: 2 req/s (3 fails)\n         B: 1 req/s (2 fails)');
  });

  it('--fail-on fails on a level slowdown, never on one a client shaped, and says so', async () => {
    const err: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => (err.push(String(s)), true));
    const [pa, pb] = writeResults(a, b);
    expect(await main(['compare', pa!, pb!, '--fail-on', '10%'])).toBe(12);
    const said = err.join('');
    expect(said).toContain(
      'error [REGRESSION]: 3 significant slowdowns beyond 10% against A (99% test; ± is the 95% interval): B 8K at 2 req/s TTFT p90 -36% ± 7%; B 8K at 2 req/s TTFT p50 -23% ± 4%; B 8K at 2 req/s goodput -15% ± 7%.',
    );
    expect(said).toContain(
      "note: the gate did not count B shared-prefix at 8 req/s: B is 23% ± 4% slower than A (TTFT p50), not the server's: A's level was client-bound",
    );
    // B with A's levels but its 8 req/s one: the only slowdown is where A's client fell behind: the gate passes
    const onlyBound = structuredClone(a);
    onlyBound.levels = a.levels!.map((l) =>
      l.key === `${PREFIX_ROW}@8/s` ? b.levels!.find((x) => x.key === l.key)! : l,
    );
    const [pa2, pb2] = writeResults(a, onlyBound);
    err.length = 0;
    expect(await main(['compare', pa2!, pb2!, '--fail-on', '10%'])).toBe(0);
    expect(err.join('')).toContain('note: the gate did not count B shared-prefix at 8 req/s');
  });
});
