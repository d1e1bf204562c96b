import { describe, expect, it } from 'vitest';
import { renderCompare, renderReport } from '../../src/report/index.js';
import { HOSTILE, syntheticResult } from './synthetic.js';
import { SEEDS, seedResult } from './seeds.js';

const MAX_BYTES = 1.5 * 1024 * 1024;

describe('HTML report (string checks; the browser tests open it for real)', () => {
  for (const seed of SEEDS) {
    it(`${seed.name}: self-contained, small, one heatmap cell per measurement`, () => {
      const r = seedResult(seed.id);
      const html = renderReport(r, 'html');
      expect(Buffer.byteLength(html)).toBeLessThan(MAX_BYTES);
      // Nothing that could load: no external src/href, a CSP that forbids network access.
      expect(html).not.toMatch(/\s(src|href)="(https?:)?\/\//i);
      expect(html).not.toMatch(/@import|url\(\s*['"]?https?:/i);
      expect(html).toContain("default-src 'none'");
      const cells = [
        ...html.matchAll(/data-cell data-context="(\d+)" data-concurrency="(\d+)" data-status="([^"]+)"/g),
      ];
      expect(cells).toHaveLength(r.decode.length);
      for (const [, ctx, n, status] of cells) {
        const c = r.decode.find((x) => x.contextTokens === Number(ctx) && x.concurrency === Number(n))!;
        expect(status).toBe(c.status);
      }
      expect(html.match(/class="cell-detail"/g)).toHaveLength(r.decode.length);
      for (const s of [
        'Hardware',
        'Engine',
        'Run',
        'Launch command',
        'Prefill',
        'Sustained decode matrix',
        'All measurements',
      ])
        expect(html).toContain(`>${s}</h2>`);
      expect(html).toContain('@media print');
      expect(html).toContain('prefers-color-scheme:dark');
    });
  }

  it('H200: the 64K prefill bar is marked as an outlier and explained', () => {
    const html = renderReport(seedResult(SEEDS[1].id), 'html');
    expect(html).toMatch(/<g data-prefill="65536" data-status="Valid" data-outlier>/);
    expect(html.match(/data-outlier>/g)).toHaveLength(1);
    expect(html).toContain('data-anomaly="prefill-outlier"');
    expect(html).toContain('Prefill at 64K ran at 4,764.0 tok/s');
  });

  it('escapes every string from the result', () => {
    const html = renderReport(syntheticResult(), 'html');
    expect(html).not.toContain(HOSTILE);
    expect(html).not.toContain('<b>bold</b>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('connection refused &lt;after restart&gt;');
    // Exactly one script element: ours.
    expect(html.match(/<script/g)).toHaveLength(1);
  });

  it('shows the details the synthetic result carries', () => {
    const html = renderReport(syntheticResult(), 'html');
    const detail = (id: string) =>
      html.slice(
        html.indexOf(`id="detail-cell-${id}"`),
        html.indexOf('</section>', html.indexOf(`id="detail-cell-${id}"`)),
      );
    const queued = detail('4096x8');
    expect(queued).toContain('vllm:num_requests_waiting reached 3');
    expect(queued).toContain('aria-label="Server samples during the window"');
    expect(queued).toContain('<th>p99</th>');
    const errs = detail('8192x2');
    expect(errs).toContain('<code>timeout_idle</code></th><td>2</td>');
    expect(errs).toContain('40.0% of prompt tokens were served from the prefix cache');
    expect(detail('8192x8')).toContain('every request failed');
    expect(html).toContain('data-status="Failed"');
    expect(html).toContain('Total tok/s per GPU');
  });

  it('compare page is self-contained and escaped', () => {
    const html = renderCompare([syntheticResult(), seedResult(SEEDS[0].id)], 'html');
    expect(Buffer.byteLength(html)).toBeLessThan(MAX_BYTES);
    expect(html).not.toContain(HOSTILE);
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).toContain('Metadata differences');
  });

  it('an interrupted run shows the planned cells it did not reach; an empty run still renders in every format', () => {
    const r = syntheticResult();
    r.status = 'interrupted';
    r.decode = r.decode.filter((c) => c.contextTokens !== 16384);
    const html = renderReport(r, 'html');
    expect(html.match(/class="hm-empty"[^>]*>not run</g)).toHaveLength(4);
    expect(html).toContain('<dt>Status</dt><dd>interrupted</dd>');
    const empty = syntheticResult();
    empty.decode = [];
    empty.prefill = [];
    for (const f of ['html', 'md', 'txt', 'csv', 'json'] as const)
      expect(renderReport(empty, f).length).toBeGreaterThan(100);
  });

  it('stays under 1.5 MB for a large matrix with long server-sample series', () => {
    const r = syntheticResult();
    const base = r.decode[0]!;
    const samples = Array.from({ length: 1800 }, (_, i) => ({
      tMs: i * 1000,
      running: i % 50,
      waiting: i % 7,
      kvUsage: (i % 100) / 100,
    }));
    r.config.contexts = Array.from({ length: 12 }, (_, i) => 1024 * 2 ** i);
    r.config.concurrency = Array.from({ length: 12 }, (_, i) => 2 ** i);
    r.decode = r.config.contexts.flatMap((ctx) =>
      r.config.concurrency.map((n) => ({
        ...base,
        contextTokens: ctx,
        concurrency: n,
        serverSamples: samples,
      })),
    );
    const html = renderReport(r, 'html');
    expect(r.decode).toHaveLength(144);
    expect(Buffer.byteLength(html)).toBeLessThan(MAX_BYTES);
  });
});
