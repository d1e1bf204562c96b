import { describe, expect, it } from 'vitest';
import { findAnomalies } from '../../src/report/anomalies.js';
import { renderCsv } from '../../src/report/csv.js';
import { renderHtml } from '../../src/report/html/template.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { renderText } from '../../src/report/text.js';
import type { DecodeCell, RunResult } from '../../src/results/schema.js';
import { syntheticResult } from './synthetic.js';

// Requests sent again after the server closed a reused kept-alive connection unanswered (docs/method.md
// "Connections", result field staleReconnects): one note in words, in every report; nothing where there were none.

function withResent(n: number, requestsSent?: number): { r: RunResult; c: DecodeCell } {
  const r = syntheticResult();
  const c = r.decode.find((x) => x.contextTokens === 8192 && x.concurrency === 4)!;
  c.staleReconnects = n;
  if (requestsSent === undefined) delete c.requestsSent;
  else c.requestsSent = requestsSent;
  return { r, c };
}

const resentNotes = (r: RunResult) => findAnomalies(r).filter((a) => a.kind === 'resent');

describe('requests sent again on a new connection', () => {
  it('says how many, of how many, why, and how they are counted', () => {
    const many = resentNotes(withResent(3, 40).r);
    expect(many).toEqual([
      {
        kind: 'resent',
        severity: 'info',
        phase: 'decode',
        contextTokens: 8192,
        concurrency: 4,
        text:
          'Cell 8K × 4: 3 of 40 requests were sent again, on a new connection: the server closed the kept-alive ' +
          "connection each was written on without a byte of answer (llama.cpp's server closes them right after a " +
          'response). Each counts once, its TTFT timed from the second send.',
      },
    ]);
    expect(resentNotes(withResent(1, 40).r)[0]!.text).toBe(
      'Cell 8K × 4: 1 of 40 requests was sent again, on a new connection: the server closed the kept-alive ' +
        "connection it was written on without a byte of answer (llama.cpp's server closes them right after a " +
        'response). It counts once, its TTFT timed from the second send.',
    );
    // a cell that did not count its requests: the number alone
    expect(resentNotes(withResent(1).r)[0]!.text).toMatch(/^Cell 8K × 4: 1 request was sent again, on a new/);
    expect(resentNotes(withResent(2).r)[0]!.text).toMatch(
      /^Cell 8K × 4: 2 requests were sent again, on a new/,
    );
  });

  it('is a note, not a flagged figure: the HTML headline count of anomalies stays as it was', () => {
    const kpi = (h: string) => /Anomalies<\/div><div class="v">(\d+)</.exec(h)![1];
    expect(kpi(renderHtml(withResent(3, 40).r))).toBe(kpi(renderHtml(syntheticResult())));
  });

  it('shows in the txt (80 columns), md, html and csv of a result that has it, and nowhere without it', () => {
    const { r } = withResent(3, 40);
    const words = 'Cell 8K × 4: 3 of 40 requests were sent again, on a new connection';
    const flat = (s: string) => s.replace(/\s+/g, ' ');

    const txt = renderText(r, { width: 80 });
    expect(txt.split('\n').every((l) => l.length <= 80)).toBe(true);
    const anomalies = txt.slice(txt.indexOf('\nAnomalies\n'), txt.indexOf('\nAll measurements\n'));
    expect(flat(anomalies)).toContain(`i ${words}`);
    expect(flat(anomalies)).toContain('Each counts once, its TTFT timed from the second send.');

    const md = renderMarkdown(r);
    const mdNote = md.split('\n').filter((l) => l.includes('sent again'));
    expect(mdNote).toHaveLength(1);
    expect(mdNote[0]).toMatch(/^- ℹ️ Cell 8K × 4: 3 of 40 requests were sent again, on a new connection/);

    const html = renderHtml(r);
    // in the Anomalies list, tagged, and in the cell's own detail panel
    expect(html).toMatch(/data-anomaly="resent"><span class="tag">sent again<\/span>Cell 8K × 4: 3 of 40/);
    const panel = html.slice(html.indexOf('data-detail="8192x4"'));
    expect(panel.slice(0, panel.indexOf('</section>'))).toContain(`<li class="sev-info">${words}`);

    const [head, ...rows] = renderCsv(r)
      .trim()
      .split('\r\n')
      .map((l) => l.split(','));
    const col = head!.indexOf('Requests sent again');
    expect(col).toBeGreaterThan(0);
    const cell = rows.find((x) => x[0] === 'Sustained decode' && x[2] === '8192' && x[3] === '4')!;
    expect(cell[col]).toBe('3');
    // every other decode row that counted its requests says 0; prefill rows say nothing
    const others = rows.filter(
      (x) => x !== cell && x[0] === 'Sustained decode' && x[head!.indexOf('Requests sent')],
    );
    expect(others.length).toBeGreaterThan(5);
    expect(new Set(others.map((x) => x[col]))).toEqual(new Set(['0']));
    expect(rows.filter((x) => x[0] === 'Prefill').every((x) => x[col] === '')).toBe(true);

    const none = syntheticResult();
    expect(none.decode.some((c) => c.staleReconnects !== undefined)).toBe(false);
    expect(resentNotes(none)).toEqual([]);
    for (const out of [renderText(none, { width: 80 }), renderMarkdown(none), renderHtml(none)])
      expect(out).not.toMatch(/sent again|data-anomaly="resent"/);
    const [h2, ...rows2] = renderCsv(none)
      .trim()
      .split('\r\n')
      .map((l) => l.split(','));
    expect(rows2.every((x) => ['', '0'].includes(x[h2!.indexOf('Requests sent again')]!))).toBe(true);
  });
});
