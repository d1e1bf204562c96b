import { describe, expect, it } from 'vitest';
import { LineDecoder, MAX_LINE_BYTES } from '../../src/client/decode/line-decoder.js';
import { SseDecoder } from '../../src/client/decode/sse-decoder.js';
import { StreamSession } from '../../src/client/decode/stream-session.js';

// Regression: a server that never ends a line (or an SSE event) grew the client's memory without bound.
describe('decoder caps', () => {
  it('drops a never-ending line past the cap, reports it once, then decodes the next line', () => {
    const lines: string[] = [];
    const overflows: number[] = [];
    const d = new LineDecoder((l) => lines.push(l.toString()), {
      maxLineBytes: 1000,
      onOverflow: (n) => overflows.push(n),
    });
    const chunk = Buffer.alloc(100, 0x61);
    for (let i = 0; i < 50; i++) d.push(chunk);
    expect(d.pendingBytes).toBeLessThanOrEqual(1000);
    expect(overflows).toHaveLength(1);
    d.push(Buffer.from('aaa\nnext\n'));
    expect(lines).toEqual(['next']);
    expect(MAX_LINE_BYTES).toBeGreaterThanOrEqual(1024 * 1024);
  });

  it('drops an event whose blank line never comes', () => {
    const events: string[] = [];
    const overflows: number[] = [];
    const d = new SseDecoder(
      (_t, data) => events.push(data),
      undefined,
      (n) => overflows.push(n),
      1000,
    );
    for (let i = 0; i < 500; i++) d.line(Buffer.from('data: 0123456789'));
    expect(overflows).toHaveLength(1);
    d.line(Buffer.alloc(0));
    d.line(Buffer.from('data: ok'));
    d.line(Buffer.alloc(0));
    expect(events).toEqual(['ok']);
  });

  it('fails the request with error kind line_too_long and bounded memory (64 MB sent, no newline)', async () => {
    const s = new StreamSession();
    s.headers(200, 'text/event-stream', 0);
    const mb = Buffer.alloc(1024 * 1024, 0x41);
    s.data(Buffer.from('data: {"x":"'), 1);
    const before = process.memoryUsage().arrayBuffers;
    for (let i = 0; i < 64 && !s.stopped; i++) s.data(mb, 2 + i);
    expect(s.stopped).toBe(true);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(40 * 1024 * 1024);
    s.end(100);
    const rec = await s.record(0, 100);
    expect(rec.ok).toBe(false);
    expect(rec.error?.kind).toBe('line_too_long');
    expect(rec.error?.message).toMatch(/decoder cap/);
  });
});
