import { describe, expect, it } from 'vitest';
import { findAnomalies } from '../../src/report/anomalies.js';
import { renderCsv } from '../../src/report/csv.js';
import { renderHtml } from '../../src/report/html/template.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { renderText } from '../../src/report/text.js';
import type { DecodeCell, RunResult } from '../../src/results/schema.js';
import { cellName } from '../../src/format/index.js';
import { syntheticResult } from './synthetic.js';

// A stream held back between client and server (docs/method.md "Streams held back"): said in words in every
// report, and its arrival-timed figures marked as not the server's.
const held = {
  batched: true,
  requests: 12,
  eventsPerRead: 9.6,
  eventsPerStep: 1,
  firstHeldShare: 0.92,
  heldMs: 200,
};

function withHeld(): { r: RunResult; c: DecodeCell } {
  const r = syntheticResult();
  const c = r.decode.find((x) => x.status === 'Valid')!;
  c.streamBatching = { ...held };
  return { r, c };
}

describe('a stream held on the way, in the reports', () => {
  it('is an anomaly in words: the evidence, which figures are not the server’s, and what to do', () => {
    const { r, c } = withHeld();
    const flags = findAnomalies(r).filter((a) => a.kind === 'held-stream');
    expect(flags).toHaveLength(1);
    expect(flags[0]).toMatchObject({
      severity: 'warn',
      contextTokens: c.contextTokens,
      concurrency: c.concurrency,
    });
    const t = flags[0]!.text;
    expect(t).toContain(`Cell ${cellName(c)}: something between client and server held the stream back`);
    expect(t).toContain('9.6 token events per read (the server writes one per step)');
    expect(t).toContain('a median 200 ms between reads');
    expect(t).toContain('in 92% of requests the first token came with later ones');
    expect(t).toContain('TTFT, time between tokens and per-request tok/s here (and a service level judged');
    expect(t).toContain("are that proxy's timing, not the server's");
    expect(t).toContain('nginx with proxy_buffering off (or proxy_http_version 1.1)');
    // 200 ms in a 10 s window: the total still holds
    expect(t).toContain("total tok/s still counts the server's tokens (each at most about 200 ms late");
    c.streamBatching = { ...held, heldMs: 1400 };
    expect(findAnomalies(r).find((a) => a.kind === 'held-stream')!.text).toContain(
      'total tok/s may be off too (tokens up to 1,400 ms late, in a 10.0 s window)',
    );
    c.streamBatching = { ...held, batched: false };
    expect(findAnomalies(r).some((a) => a.kind === 'held-stream')).toBe(false);
  });

  it('marks TTFT and time between tokens in every format', () => {
    const { r, c } = withHeld();
    const txt = renderText(r, { width: 160 });
    expect(txt).toMatch(/something between client and server held the stream back/);
    expect(txt).toContain("! = TTFT not the server's: the stream was held back on the way");
    expect(txt).toContain(
      "⚠ after a TTFT, time between tokens, per-request tok/s or average active: not the server's",
    );
    // the All measurements row of the cell: TTFT and TBT carry the mark, total tok/s does not
    const row = txt
      .split('\n')
      .find((l) => l.includes('decode') && l.includes(` ${c.concurrency} `) && l.includes('⚠'))!;
    expect(row.match(/⚠/g)).toHaveLength(4);

    const md = renderMarkdown(r);
    expect(md).toContain(`TTFT ⚠`);
    expect(md).toContain("not the server's (a stream held back on the way), see Anomalies.*");
    const mdRow = md.split('\n').find((l) => l.startsWith(`| Sustained decode | 4K | ${c.concurrency} |`))!;
    expect(mdRow.match(/⚠/g)).toHaveLength(4);
    expect(md).toMatch(/something between client and server held the stream back/);

    const html = renderHtml(r);
    expect(html).toContain('data-anomaly="held-stream"');
    expect(html).toContain('stream held on the way');
    expect(html).toContain(
      'held back between client and server (9.6 token events per read, 200 ms between reads',
    );
    const marks = (h: string) => h.match(/<td class="flag">/g)?.length ?? 0;
    const before = marks(
      renderHtml({ ...r, decode: r.decode.map((x) => ({ ...x, streamBatching: undefined })) }),
    );
    expect(marks(html) - before).toBe(4); // the synthetic result has other flagged figures

    const [head, ...rows] = renderCsv(r)
      .trim()
      .split(/\r?\n/)
      .map((l) => l.split(','));
    const col = head!.indexOf('Stream held on the way');
    expect(rows.filter((x) => x[col] === 'true')).toHaveLength(1);
    const row2 = rows.find((x) => x[col] === 'true')!;
    expect(row2[head!.indexOf('Token events per read')]).toBe('9.6');
    expect(row2[head!.indexOf('Read gap ms')]).toBe('200');
  });
});
