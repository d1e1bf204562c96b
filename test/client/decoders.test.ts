import { describe, expect, it } from 'vitest';
import { LineDecoder } from '../../src/client/line-decoder.js';
import { SseDecoder } from '../../src/client/sse-decoder.js';
import { fastChunk } from '../../src/client/fast-chunk.js';
import { createRng } from '../../src/prompts/rng.js';
import { bytewise, feed, randomCuts, timeless, whole } from './feed.js';

function lines(reads: Array<string | Buffer>): string[] {
  const out: string[] = [];
  const d = new LineDecoder((l) => out.push(l.toString('utf8')));
  for (const r of reads) d.push(Buffer.isBuffer(r) ? r : Buffer.from(r));
  d.end();
  return out;
}

function events(text: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const sse = new SseDecoder((t, d) => out.push([t, d]));
  const ld = new LineDecoder((l) => sse.line(l));
  ld.push(Buffer.from(text));
  ld.end();
  sse.end();
  return out;
}

const chat = (content: string) =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

describe('LineDecoder', () => {
  it('splits on LF, CR and CRLF, including a CRLF split across reads', () => {
    expect(lines(['a\nb\rc\r\nd'])).toEqual(['a', 'b', 'c', 'd']);
    expect(lines(['a\r', '\nb\r', '\r', '\n'])).toEqual(['a', 'b', '']);
    expect(lines(['x\r', '', '\ny'])).toEqual(['x', 'y']);
    expect(lines(['\n\n'])).toEqual(['', '']);
  });

  it('joins lines over 64 KB and over 1 MB split into many reads', () => {
    for (const size of [70_000, 1_200_000]) {
      const big = 'x'.repeat(size);
      const reads: string[] = [];
      for (let i = 0; i < big.length; i += 4096) reads.push(big.slice(i, i + 4096));
      reads.push('\nnext\n');
      const out = lines(reads);
      expect(out.map((l) => l.length)).toEqual([size, 4]);
    }
  });
});

describe('SseDecoder', () => {
  it('ignores comments, joins multi-line data, reads event types and trims trailing spaces', () => {
    expect(events(': ping\n\ndata: a\ndata:b\n\nevent: error\ndata: {"x":1} \n\ndata: [DONE] \n\n')).toEqual([
      ['message', 'a\nb'],
      ['error', '{"x":1}'],
      ['message', '[DONE]'],
    ]);
  });

  it('delivers an event cut off by EOF and drops events without data', () => {
    expect(events('event: x\n\nid: 3\n\ndata: last')).toEqual([['message', 'last']]);
  });
});

describe('fast path', () => {
  it('answers only for flat token deltas and defers everything else to the full parse', () => {
    expect(fastChunk('{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}')).toEqual({
      text: 'hi',
      reasoningChars: 0,
    });
    expect(fastChunk('{"choices":[{"delta":{"role":"assistant","content":null}}]}')).toEqual({
      text: '',
      reasoningChars: 0,
    });
    expect(fastChunk('{"choices":[{"delta":{"reasoning":"r\\"q"}}]}')).toEqual({
      text: 'r"q',
      reasoningChars: 3,
    });
    expect(fastChunk('{"choices":[{"text":"a\\\\","finish_reason":null}]}')).toEqual({
      text: 'a\\',
      reasoningChars: 0,
    });
    for (const unsure of [
      '{"choices":[{"delta":{"content":"x"},"finish_reason":"stop"}]}',
      '{"choices":[{"delta":{"content":"x"}}],"usage":{"completion_tokens":3}}',
      '{"error":{"message":"boom"}}',
      '{"object":"error","message":"boom"}',
      '{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"}}]}',
      '{"choices":[{"delta":{"tool_calls":[{"id":"1"}]}}]}',
      '{"choices":[{"delta": {"content":"x"}}]}',
      '{"choices":[{"delta":{"content":"x"',
    ]) {
      expect(fastChunk(unsure), unsure).toBeUndefined();
    }
    // Quotes inside content are escaped, so text that looks like a key cannot fool it.
    expect(
      fastChunk('{"choices":[{"delta":{"content":"say \\"usage\\": {"},"finish_reason":null}]}'),
    ).toEqual({
      text: 'say "usage": {',
      reasoningChars: 0,
    });
  });
});

describe('StreamSession decoding', () => {
  it('keeps invalid UTF-8 and multi-byte characters identical however the bytes are split', async () => {
    const head = Buffer.from('data: {"choices":[{"delta":{"content":"caf');
    const body = Buffer.concat([
      head,
      Buffer.from([0xc3, 0xa9, 0xff, 0xe2, 0x82]), // é, an invalid byte, a truncated euro sign
      Buffer.from('"}}]}\n\n'),
      Buffer.from(chat('€ 😀')),
      Buffer.from('data: [DONE]\n\n'),
    ]);
    const ref = await feed(body, whole(body), { keepText: true });
    expect(ref.text).toBe('café\ufffd\ufffd€ 😀');
    expect(timeless(await feed(body, bytewise(body), { keepText: true }))).toEqual(timeless(ref));
    const rng = createRng(5);
    for (let k = 0; k < 20; k++) {
      expect(timeless(await feed(body, randomCuts(body, rng, 3), { keepText: true }))).toEqual(timeless(ref));
    }
  });

  it('reads a 1.5 MB event split into 64 KB reads', async () => {
    const content = 'y'.repeat(1_500_000);
    const body = Buffer.from(
      chat(content) + 'data: {"choices":[],"usage":{"completion_tokens":9}}\n\ndata: [DONE]\n\n',
    );
    const cuts: number[] = [];
    for (let i = 65_536; i < body.length; i += 65_536) cuts.push(i);
    const r = await feed(body, cuts, { keepText: true });
    expect(r.ok).toBe(true);
    expect(r.text?.length).toBe(1_500_000);
    expect(r.outputTokens).toBe(9);
  });

  it('uses the tokenize callback when there is no usage, and the estimate when it fails', async () => {
    const body = Buffer.from(
      chat('abc') +
        chat('defgh') +
        'data: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
    );
    const seen: string[] = [];
    const r = await feed(body, whole(body), {
      tokenize: async (t) => {
        seen.push(t);
        return 5;
      },
    });
    expect(seen).toEqual(['abcdefgh']);
    expect(r.tokenCountSource).toBe('tokenize');
    expect(r.outputTokens).toBe(5);
    expect(r.text).toBeUndefined();
    const e = await feed(body, whole(body), { tokenize: async () => undefined, charsPerTokenEstimate: 2 });
    expect(e.tokenCountSource).toBe('estimate');
    expect(e.outputTokens).toBe(4);
  });

  it('treats a 200 JSON answer (stream ignored) as one chunk', async () => {
    const s = new (await import('../../src/client/stream-session.js')).StreamSession();
    s.headers(200, 'application/json', 1);
    s.data(
      Buffer.from(
        JSON.stringify({
          choices: [{ message: { content: 'whole' }, finish_reason: 'stop' }],
          usage: { completion_tokens: 3, prompt_tokens: 2 },
        }),
      ),
      5,
    );
    s.end(6);
    const r = await s.record(0, 6);
    expect(r).toMatchObject({
      ok: true,
      outputTokens: 3,
      chunks: [[6, 3]],
      finishReason: 'stop',
      promptTokens: 2,
    });
  });
});

describe('decoder fuzz (bounded)', () => {
  it('never throws or hangs on random bytes, and stays split-independent', async () => {
    const rng = createRng(20261202);
    const pieces = [
      'data: ',
      'data:',
      'event: error\n',
      ': c\n',
      '\n',
      '\r',
      '\r\n',
      '{',
      '}',
      '"',
      '\\',
      '[DONE]',
      '"delta":{',
      '"content":"',
      '"usage":{"completion_tokens":',
      '"choices":[',
      ']',
      ',',
      '"finish_reason":"stop"',
      'null',
      '9',
      '"error":',
    ];
    const t0 = Date.now();
    for (let iter = 0; iter < 400 && Date.now() - t0 < 5000; iter++) {
      const parts: Buffer[] = [];
      const n = 1 + Math.floor(rng() * 60);
      for (let i = 0; i < n; i++) {
        if (rng() < 0.2) parts.push(Buffer.from([Math.floor(rng() * 256)]));
        else parts.push(Buffer.from(pieces[Math.floor(rng() * pieces.length)]!));
      }
      const body = Buffer.concat(parts);
      const a = await feed(body, whole(body), { keepText: true });
      const b = await feed(body, randomCuts(body, rng, 4), { keepText: true, fastPath: iter % 2 === 0 });
      expect(timeless(b)).toEqual(timeless(a));
      expect(a.outputTokens).toBe(a.chunks.reduce((s, c) => s + c[1], 0));
    }
  });
});
