import { describe, expect, it } from 'vitest';
import { renderReport } from '../../src/report/index.js';
import type { RunResult } from '../../src/results/schema.js';
import { HOSTILE, syntheticResult } from './synthetic.js';

// A cell's failed requests in the server's own words (docs/report.md "Anomalies"): the txt, md and html reports quote
// the messages it answered with, with their counts, not only requests.jsonl; html escapes them.
function withWords(): RunResult {
  const r = syntheticResult();
  const i = r.decode.findIndex((c) => c.status === 'Failed' && c.contextTokens === 8192);
  r.decode[i] = {
    ...r.decode[i]!,
    errors: { stream_error_event: 12 },
    serverErrors: [
      { message: 'Context size has been exceeded.', count: 12, kind: 'stream_error_event', status: 500 },
      { message: HOSTILE, count: 1, kind: 'http_status', status: 400 },
    ],
  };
  return r;
}

describe("the server's own words in every report", () => {
  it.each(['txt', 'md'] as const)('%s quotes them with their counts', (format) => {
    const out = renderReport(withWords(), format).replace(/\s+/g, ' ');
    expect(out).toContain('The server said "Context size has been exceeded." (12);');
  });

  it('html lists them in the cell details, escaped', () => {
    const html = renderReport(withWords(), 'html');
    expect(html).toContain('<h4>The server said</h4>');
    expect(html).toContain(
      '<th scope="row">Context size has been exceeded.</th><td>12 × <code>stream_error_event</code> 500</td>',
    );
    expect(html).not.toContain(`<th scope="row">${HOSTILE}`);
    expect(html.replace(/\s+/g, ' ')).toContain(
      'The server said &quot;Context size has been exceeded.&quot; (12)',
    );
  });

  it('a cell without them reads as before', () => {
    const out = renderReport(syntheticResult(), 'txt');
    expect(out).not.toContain('The server said');
  });
});
