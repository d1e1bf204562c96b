// Every engine flavor's transcript (test/fixtures/streams, written from docs/engines.md) decodes to the expected
// record, and to the same record whatever the read splits, line endings or parsing path.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RequestRecord } from '../../src/client/types.js';
import { createRng } from '../../src/prompts/rng.js';
import { bytewise, eventwise, feed, randomCuts, timeless, whole } from './feed.js';

const dir = fileURLToPath(new URL('../fixtures/streams/', import.meta.url));
const load = (name: string) => readFileSync(dir + name);

type Expect = Partial<Omit<RequestRecord, 'chunks' | 'error'>> & {
  chunkTokens: number[];
  error?: { kind: string; status?: number; message?: string };
};

const cases: Record<string, Expect> = {
  'vllm-chat-final-usage.sse': {
    ok: true,
    chunkTokens: [1, 2, 1, 2],
    outputTokens: 6,
    tokenCountSource: 'final_usage',
    finishReason: 'length',
    promptTokens: 20,
    cachedTokens: 16,
  },
  'vllm-chat-continuous-reasoning.sse': {
    ok: true,
    chunkTokens: [3, 3, 2, 2],
    outputTokens: 10,
    tokenCountSource: 'continuous_usage',
    finishReason: 'stop',
    reasoningTokens: 6,
    promptTokens: 30,
  },
  'vllm-completions.sse': {
    ok: true,
    chunkTokens: [1, 1, 1, 1],
    tokenCountSource: 'final_usage',
    finishReason: 'length',
    promptTokens: 5,
  },
  'vllm-error-midstream.sse': {
    ok: false,
    chunkTokens: [1],
    tokenCountSource: 'estimate',
    error: { kind: 'stream_error_event', status: 500, message: 'EngineCore encountered an issue' },
  },
  'sglang-chat-reasoning.sse': {
    ok: true,
    chunkTokens: [1, 2, 1, 2],
    tokenCountSource: 'final_usage',
    finishReason: 'stop',
    reasoningTokens: 3,
    promptTokens: 11,
  },
  'sglang-error-midstream.sse': {
    ok: false,
    chunkTokens: [1],
    error: { kind: 'stream_error_event', status: 503, message: 'The server is out of memory' },
  },
  'llamacpp-chat-usage.sse': {
    ok: true,
    chunkTokens: [1, 1, 1, 1],
    tokenCountSource: 'final_usage',
    finishReason: 'length',
    promptTokens: 135,
    cachedTokens: 128,
    reasoningTokens: 1,
  },
  'llamacpp-chat-timings-only.sse': {
    ok: true,
    chunkTokens: [3, 2],
    tokenCountSource: 'final_usage',
    finishReason: 'stop',
    cachedTokens: 0,
  },
  'llamacpp-error-midstream.sse': {
    ok: false,
    chunkTokens: [1],
    error: { kind: 'stream_error_event', status: 500, message: 'Context size has been exceeded.' },
  },
  'tgi-chat-usage.sse': {
    ok: true,
    chunkTokens: [1, 2, 1],
    tokenCountSource: 'final_usage',
    finishReason: 'length',
    promptTokens: 8,
  },
  'tgi-error-in-stream.sse': {
    ok: false,
    chunkTokens: [],
    outputTokens: 0,
    tokenCountSource: 'none',
    error: { kind: 'stream_error_event', status: 422 },
  },
  'ollama-chat-no-usage.sse': {
    ok: true,
    chunkTokens: [1, 1, 2, 1],
    tokenCountSource: 'estimate',
    finishReason: 'stop',
    reasoningTokens: 2,
  },
  'ollama-chat-usage.sse': {
    ok: true,
    chunkTokens: [1, 1],
    tokenCountSource: 'final_usage',
    finishReason: 'length',
    promptTokens: 26,
  },
  'ollama-truncated.sse': {
    ok: false,
    chunkTokens: [1, 1],
    tokenCountSource: 'estimate',
    error: { kind: 'stream_truncated' },
  },
  'trtllm-chat-continuous.sse': {
    ok: true,
    chunkTokens: [3, 1, 3],
    tokenCountSource: 'continuous_usage',
    finishReason: 'length',
    promptTokens: 40,
    cachedTokens: 32,
  },
  'trtllm-abrupt-close.sse': { ok: false, chunkTokens: [1, 1], error: { kind: 'stream_truncated' } },
  'generic-event-error.sse': {
    ok: false,
    chunkTokens: [1],
    error: { kind: 'stream_error_event', status: 500, message: 'backend crashed' },
  },
  'generic-multiline-data.sse': {
    ok: true,
    chunkTokens: [1, 1],
    tokenCountSource: 'final_usage',
    finishReason: 'stop',
    promptTokens: 1,
  },
  'generic-bad-json.sse': { ok: false, chunkTokens: [1], error: { kind: 'bad_json' } },
  'generic-pretty-json.sse': {
    ok: true,
    chunkTokens: [3, 2],
    tokenCountSource: 'final_usage',
    finishReason: 'stop',
    promptTokens: 3,
  },
};

const variants = {
  lf: (b: Buffer) => b,
  crlf: (b: Buffer) => Buffer.from(b.toString('latin1').replace(/\n/g, '\r\n'), 'latin1'),
  cr: (b: Buffer) => Buffer.from(b.toString('latin1').replace(/\n/g, '\r'), 'latin1'),
};

describe('engine transcripts', () => {
  for (const [name, exp] of Object.entries(cases)) {
    describe(name, () => {
      const body = load(name);

      it('decodes to the expected record', async () => {
        const r = await feed(body, whole(body), { keepText: true });
        const { chunkTokens, error, ...fields } = exp;
        expect(r.chunks.map((c) => c[1])).toEqual(chunkTokens);
        expect(r.outputTokens).toBe(chunkTokens.reduce((a, b) => a + b, 0));
        expect(r).toMatchObject(fields);
        if (error) expect(r.error).toMatchObject(error);
        else expect(r.error).toBeUndefined();
        if (exp.reasoningTokens === undefined) expect(r.reasoningTokens).toBeUndefined();
        if (exp.cachedTokens === undefined) expect(r.cachedTokens).toBeUndefined();
        if (chunkTokens.length > 0) expect(r.firstTokenAtMs).toBe(r.chunks[0]![0]);
      });

      it('gives identical times byte by byte and event by event', async () => {
        const a = await feed(body, eventwise(body));
        const b = await feed(body, bytewise(body));
        expect(b).toEqual(a);
      });

      it('gives the same record for random splits, CR/LF/CRLF, and with the fast path off', async () => {
        const ref = timeless(await feed(body, whole(body), { keepText: true }));
        const exact = await feed(body, bytewise(body));
        const rng = createRng(name.length * 7919);
        for (const [vName, v] of Object.entries(variants)) {
          const vb = v(body);
          for (let k = 0; k < 12; k++) {
            const r = await feed(vb, randomCuts(vb, rng, 1 + k * 3), {
              keepText: true,
              fastPath: k % 2 === 0,
            });
            expect(timeless(r), `${vName} split ${k}`).toEqual(ref);
            if (vName === 'lf') {
              // A chunk is never stamped before the read that completed it.
              r.chunks.forEach((c, i) => expect(c[0]).toBeGreaterThanOrEqual(exact.chunks[i]![0]));
            }
          }
          expect(timeless(await feed(vb, bytewise(vb), { keepText: true, fastPath: false }))).toEqual(ref);
        }
      });
    });
  }
});
