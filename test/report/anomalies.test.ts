import { describe, expect, it } from 'vitest';
import { prefillWarnings } from '../../src/bench/prefill.js';
import { contextLabel } from '../../src/format/index.js';
import { findAnomalies } from '../../src/report/anomalies.js';
import { renderReport } from '../../src/report/index.js';
import { syntheticResult } from './synthetic.js';
import { SEEDS, seedResult } from './seeds.js';

const kinds = (r: ReturnType<typeof seedResult>, kind: string) =>
  findAnomalies(r)
    .filter((a) => a.kind === kind)
    .map((a) => (a.concurrency === undefined ? `${a.contextTokens}` : `${a.contextTokens}x${a.concurrency}`));

describe('anomaly rules', () => {
  it('H200: flags the 64K prefill point (4.8K tok/s between 22.8K and 16.9K) and only it', () => {
    const r = seedResult(SEEDS[1].id);
    expect(kinds(r, 'prefill-outlier')).toEqual(['65536']);
    const a = findAnomalies(r).find((x) => x.kind === 'prefill-outlier')!;
    expect(a.text).toContain('Prefill at 64K ran at 4,764.0 tok/s');
    expect(a.text).toContain('32K (22.8K) and 128K (16.9K)');
  });

  it('H200: flags the 11-second TTFTs at 8K, queued cells and the throughput drops', () => {
    const r = seedResult(SEEDS[1].id);
    expect(kinds(r, 'ttft-outlier')).toEqual(['8192x8', '8192x32', '8192x64']);
    expect(kinds(r, 'queued')).toEqual(['8192x64', '8192x128', '16384x64', '32768x64', '1043456x2']);
    expect(kinds(r, 'throughput-drop')).toEqual(['8192x128', '16384x64']);
  });

  it('RTX PRO 6000: a smooth run has nothing to flag but the import note', () => {
    const list = findAnomalies(seedResult(SEEDS[0].id));
    expect(list.map((a) => a.kind)).toEqual(['warning']);
  });

  it('synthetic: failed cells and prefill, request errors (aborts excluded), repeat outliers, warnings', () => {
    const r = syntheticResult();
    const list = findAnomalies(r);
    expect(kinds(r, 'failed')).toEqual(['32512', '8192x8']);
    expect(kinds(r, 'errors')).toEqual(['8192x2']);
    expect(list.find((a) => a.kind === 'errors')!.text).toContain(
      '3 requests failed (2 timeout_idle, 1 http_status)',
    );
    expect(kinds(r, 'prefill-outlier')).toEqual(['4096']);
    expect(kinds(r, 'prefill-repeat-outlier')).toEqual(['4096']);
    expect(kinds(r, 'ttft-outlier')).toEqual(['4096x4']);
    expect(list.find((a) => a.kind === 'queued')!.text).toContain(
      'Evidence: vllm:num_requests_waiting reached 3',
    );
    expect(list.at(-1)!.text).toContain('missed its target');
  });

  it('does not flag a single end point when its neighbours disagree', () => {
    const r = syntheticResult();
    r.prefill = r.prefill
      .slice(0, 3)
      .map((p, i) => ({ ...p, tokensPerS: [1000, 5000, 9000][i]!, repeats: [] }));
    expect(kinds(r, 'prefill-outlier')).toEqual([]);
  });

  // The demo's first point (1K) once came out at 20.9K tok/s against 32.7-33.8K in later runs: the point measured
  // first is the one a warming server, or a sim on a busy machine, slows; the flag says so instead of blaming 1K.
  it('names a low first point a possible cold start, and a low later point a one-off', () => {
    const r = syntheticResult();
    const speeds = [15_300, 39_600, 43_100, 48_100];
    r.prefill = r.prefill.slice(0, 4).map((p, i) => ({ ...p, tokensPerS: speeds[i]!, repeats: [] }));
    expect(kinds(r, 'prefill-outlier')).toEqual([`${r.prefill[0]!.contextTokens}`]);
    const first = findAnomalies(r).find((a) => a.kind === 'prefill-outlier')!.text;
    expect(first).toContain('this is the first point the run measured: a cold start');
    expect(first).toContain('Rerun to tell');
    r.prefill[0]!.tokensPerS = 39_000;
    r.prefill[2]!.tokensPerS = 15_000;
    const later = findAnomalies(r).find((a) => a.kind === 'prefill-outlier')!.text;
    expect(later).toContain('likely a one-off');
    expect(later).not.toContain('cold start');
  });
});

// A demo's 1K point with one repeat 35% off said so twice: as PREFILL REPEATS and again as a NOTE (the runner's
// warning), in the HTML anomalies and in the terminal. Once each now; the runner still stores the warning.
describe('a prefill repeat outlier is said once', () => {
  const r = syntheticResult();
  const point = r.prefill.find((p) => p.repeats.some((x) => x.outlier))!;
  r.warnings.push(...prefillWarnings(point, contextLabel(point.contextTokens)));

  it('the runner stores its warning, and the anomalies list the flag without the note', () => {
    expect(r.warnings).toContain(
      'prefill 4K: a repeat differs from the median by more than 25% (flagged as outlier)',
    );
    const said = findAnomalies(r).filter((a) => a.text.includes('from the median'));
    expect(said.map((a) => a.kind)).toEqual(['prefill-repeat-outlier']);
    // Other warnings are still notes.
    expect(findAnomalies(r).at(-1)!.text).toContain('missed its target');
  });

  it('once in the terminal and once in the HTML', () => {
    const mentions = (text: string) => text.match(/(from|differs from) the median/g)?.length ?? 0;
    expect(mentions(renderReport(r, 'txt', { width: 200 }))).toBe(1);
    const html = renderReport(r, 'html');
    expect(mentions(html.slice(html.indexOf('id="anomalies"')))).toBe(1);
  });
});
