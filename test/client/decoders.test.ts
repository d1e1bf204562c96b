import { describe, expect, it } from 'vitest';
import { LineDecoder } from '../../src/client/decode/line-decoder.js';
import { SseDecoder } from '../../src/client/decode/sse-decoder.js';
import { TemplateCache } from '../../src/client/decode/chunk-template.js';
import { fullChunk } from '../../src/client/decode/full-chunk.js';
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

describe('chunk templates (the fast path)', () => {
  const ev = (content: string, extra = '"logprobs":null,"finish_reason":null') =>
    `{"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}},${extra}}]}`;
  const learnFrom = (d: string) => {
    const t = new TemplateCache();
    const o: unknown = JSON.parse(d);
    t.learn(d, o, fullChunk(o));
    return t;
  };
  const match = (t: TemplateCache, d: string) => {
    const b = Buffer.from(`data: ${d}`);
    return t.match(b, 6, b.length);
  };

  it('recognises a later event that differs only in the text, escapes included', () => {
    const t = learnFrom(ev('Hello'));
    expect(match(t, ev(' world'))).toEqual({ text: ' world', reasoningChars: 0 });
    expect(match(t, ev('say "hi"\n\u00e9'))).toEqual({ text: 'say "hi"\n\u00e9', reasoningChars: 0 });
    expect(match(t, ev('été 😀'))).toEqual({ text: 'été 😀', reasoningChars: 0 });
  });

  it('misses whenever anything but the text changed, or the hole is not one JSON string', () => {
    const t = learnFrom(ev('Hello'));
    expect(match(t, ev('x', '"logprobs":null,"finish_reason":"stop"'))).toBeUndefined();
    expect(match(t, ev('x').replace('"created":7', '"created":8'))).toBeUndefined();
    expect(match(t, ev('x').replace('}]}', '}],"usage":{"completion_tokens":3}}'))).toBeUndefined();
    // Unescaped quotes in the hole: the event is not the template's shape.
    const forged = ev('PLACEHOLDER').replace('PLACEHOLDER', 'a"},"finish_reason":"stop","x":{"y":"');
    expect(match(t, forged)).toBeUndefined();
  });

  it('learns only from plain token events', () => {
    for (const d of [
      ev('x', '"logprobs":null,"finish_reason":"length"'),
      '{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"a"}}]}',
      '{"choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":1}}',
      '{"choices":[],"usage":{"completion_tokens":1}}',
      '{"choices":[{"delta":{"role":"assistant","content":""}}]}',
      '{"error":{"message":"x"}}',
    ]) {
      const t = learnFrom(d);
      expect(match(t, d), d).toBeUndefined();
    }
    const r = learnFrom('{"choices":[{"delta":{"reasoning_content":"think"}}]}');
    expect(match(r, '{"choices":[{"delta":{"reasoning_content":"more"}}]}')).toEqual({
      text: 'more',
      reasoningChars: 4,
    });
  });

  it('reads cumulative usage, varying counters and mixed deltas from the bytes', () => {
    const cu = (text: string, n: number, extra = '') =>
      `{"id":"c1","created":7,"choices":[{"index":0,"delta":{"content":${JSON.stringify(text)}},"logprobs":null,"finish_reason":null${extra}}],"usage":{"prompt_tokens":9,"total_tokens":${9 + n},"completion_tokens":${n}}}`;
    const t = learnFrom(cu('a', 1));
    expect(match(t, cu(' bc', 12))).toEqual({ text: ' bc', reasoningChars: 0, completionTokens: 12 });
    expect(match(t, cu('x', 3).replace('"prompt_tokens":9', '"prompt_tokens":8'))).toBeUndefined();
    expect(match(t, cu('x', 3).replace('"completion_tokens":3', '"completion_tokens":3.5'))).toBeUndefined();
    // TensorRT-LLM's per-chunk average is a hole too
    const trt = learnFrom(cu('a', 1, ',"avg_decoded_tokens_per_iter":1.5'));
    expect(match(trt, cu('z', 7, ',"avg_decoded_tokens_per_iter":2.333'))?.completionTokens).toBe(7);
    // reasoning before content, as the full parse reads them; vLLM's alias pair counts once
    const mixed = learnFrom('{"choices":[{"delta":{"content":"a","reasoning":"b"}}]}');
    expect(match(mixed, '{"choices":[{"delta":{"content":"cd","reasoning":"e"}}]}')).toEqual({
      text: 'ecd',
      reasoningChars: 1,
    });
    const alias = learnFrom('{"choices":[{"delta":{"reasoning":"b","reasoning_content":"b"}}]}');
    expect(match(alias, '{"choices":[{"delta":{"reasoning":"xy","reasoning_content":"xy"}}]}')).toEqual({
      text: 'xy',
      reasoningChars: 2,
    });
    expect(
      match(alias, '{"choices":[{"delta":{"reasoning":"xy","reasoning_content":"zz"}}]}'),
    ).toBeUndefined();
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
    const s = new (await import('../../src/client/decode/stream-session.js')).StreamSession();
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

describe('fast path vs full parse on mutated engine-like streams (bounded fuzz)', () => {
  it('gives identical records with and without chunk templates', async () => {
    const rng = createRng(77);
    const alphabet = [
      'a',
      ' b',
      'é',
      '😀',
      '"',
      '\\',
      '\n',
      '\t',
      '}',
      '{',
      ',',
      '\u2028',
      '\ufffd',
      'x"},"finish_reason":"stop',
    ];
    const t0 = Date.now();
    for (let iter = 0; iter < 150 && Date.now() - t0 < 5000; iter++) {
      const parts: string[] = [];
      const created = 1 + Math.floor(rng() * 2);
      for (let i = 0; i < 30; i++) {
        let content = '';
        for (let k = Math.floor(rng() * 3); k >= 0; k--)
          content += alphabet[Math.floor(rng() * alphabet.length)];
        const field = rng() < 0.2 ? 'reasoning_content' : 'content';
        const fin = rng() < 0.05 ? '"stop"' : 'null';
        let ev = `{"id":"x","created":${rng() < 0.9 ? created : 3},"choices":[{"index":0,"delta":{"${field}":${JSON.stringify(content)}},"finish_reason":${fin}}]}`;
        if (rng() < 0.05) ev = ev.slice(0, Math.floor(rng() * ev.length)); // corrupt
        parts.push(`data: ${ev}\n\n`);
      }
      parts.push('data: {"choices":[],"usage":{"completion_tokens":45}}\n\ndata: [DONE]\n\n');
      const body = Buffer.from(parts.join(''));
      const cuts = randomCuts(body, rng, 40);
      const fast = await feed(body, cuts, { keepText: true });
      const full = await feed(body, cuts, { keepText: true, fastPath: false });
      expect(fast).toEqual(full);
    }
  });
});
