import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pinCellChunkTokens, pinChunkTokens, windowTokenErrorBound } from '../../src/client/attribution.js';
import { streamRequest } from '../../src/client/stream.js';
import type { RequestRecord } from '../../src/client/types.js';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { probeTarget } from '../../src/target/probe.js';
import { feed, whole } from './feed.js';

const WORDS = ['alpha', 'beta', 'gamma', 'delta'];
const chunk = (o: Record<string, unknown>) =>
  `data: ${JSON.stringify({ id: 'x', choices: [{ index: 0, delta: o, finish_reason: null }] })}\n\n`;

// The case that found it: 4 tokens per chunk, 8 reasoning tokens, only a final usage (no continuous usage).
function fourPerChunk(reasoningDetails: boolean): Buffer {
  let s = '';
  for (let i = 0; i < 2; i++) s += chunk({ reasoning_content: ` ${WORDS.join(' ')}` });
  for (let i = 0; i < 6; i++) s += chunk({ content: ` ${WORDS.join(' ')}` });
  const usage: Record<string, unknown> = { prompt_tokens: 5, completion_tokens: 32, total_tokens: 37 };
  if (reasoningDetails) usage.completion_tokens_details = { reasoning_tokens: 8 };
  s += `data: ${JSON.stringify({ id: 'x', choices: [{ index: 0, delta: {}, finish_reason: 'length' }] })}\n\n`;
  s += `data: ${JSON.stringify({ id: 'x', choices: [], usage })}\n\ndata: [DONE]\n\n`;
  return Buffer.from(s);
}

describe('honest token attribution', () => {
  it('labels a split of a final total estimated, with the tokens it placed as the error bound', async () => {
    const body = fourPerChunk(false);
    const r = await feed(body, whole(body), { keepChunkTexts: true });
    expect(r.outputTokens).toBe(32); // the total is the server's
    expect(r.chunkAttribution).toBe('estimated');
    expect(r.unpinnedTokens).toBe(32 - 8); // one token per chunk is certain, the rest was placed
    expect(r.reasoningTokensSource).toBe('chunks');
    expect(r.chunkTexts).toHaveLength(8);
  });

  it('takes reasoning tokens from the usage details when the server gives them', async () => {
    const body = fourPerChunk(true);
    const r = await feed(body, whole(body));
    expect(r.reasoningTokens).toBe(8);
    expect(r.reasoningTokensSource).toBe('usage');
  });

  it('pins the counts with the tokenizer after the cell when they add up to the server total', async () => {
    const body = fourPerChunk(false);
    const r = await feed(body, whole(body), { keepChunkTexts: true });
    // a tokenize endpoint that adds a BOS to every text it counts
    const tokenize = async (t: string) => t.split(' ').filter(Boolean).length + 1;
    const [pinned] = await pinCellChunkTokens([r, r], tokenize);
    expect(pinned!.chunkAttribution).toBe('exact');
    expect(pinned!.chunks.map((c) => c[1])).toEqual([4, 4, 4, 4, 4, 4, 4, 4]);
    expect(pinned!.unpinnedTokens).toBeUndefined();
    // counts that do not add up leave the record estimated
    const off = pinChunkTokens(r, () => 3);
    expect(off).toBe(r);
  });

  it('bounds a window count by the guessed tokens of requests cut by an edge', () => {
    const rec = (
      times: number[],
      unpinned: number,
    ): Pick<RequestRecord, 'chunks' | 'chunkAttribution' | 'unpinnedTokens'> => ({
      chunks: times.map((t) => [t, 2] as [number, number]),
      chunkAttribution: 'estimated',
      unpinnedTokens: unpinned,
    });
    const w = { openMs: 100, closeMs: 200 };
    expect(
      windowTokenErrorBound(
        [rec([50, 150], 3), rec([120, 150], 5), rec([150, 250], 7), rec([10, 20], 11)],
        w,
      ),
    ).toBe(3 + 7);
  });
});

describe('attribution against the sim', () => {
  let sim: SimHandle;
  beforeAll(async () => {
    sim = await startSim({
      profile: 'tiny',
      flavor: 'sglang',
      overrides: { speculative: { k: 4, meanTokens: 3 }, reasoningTokens: 0, earlyStopRate: 0 },
    });
  });
  afterAll(() => sim.close());

  it('multi-token chunks without continuous usage: estimated in the stream, exact after pinning', async () => {
    const info = await probeTarget({ baseUrl: sim.baseUrl, hardware: { source: 'none' } });
    expect(info.tokenize).toBeDefined();
    const recs = await Promise.all(
      [1, 2, 3].map((i) =>
        streamRequest({
          baseUrl: sim.baseUrl,
          api: 'chat',
          body: {
            model: info.model,
            messages: [{ role: 'user', content: `story ${i}` }],
            max_tokens: 256,
            ignore_eos: true,
            stream_options: { include_usage: true },
          },
          keepChunkTexts: true,
        }),
      ),
    );
    expect(recs.every((r) => r.ok && r.outputTokens === 256)).toBe(true);
    // A request whose tokens all came in one chunk (a sim pass that woke late on a loaded machine writes every due
    // step at once) is exact by itself: one chunk holds the whole total.
    const multi = recs.filter((r) => r.chunks.length > 1 && r.chunks.length < 256);
    expect(multi.length).toBeGreaterThan(0);
    for (const r of multi) expect(r.chunkAttribution).toBe('estimated');
    for (const r of recs.filter((x) => x.chunks.length === 1)) expect(r.chunkAttribution).toBe('exact');
    const pinned = await pinCellChunkTokens(recs, (t) => info.tokenize!(t, 'completions'));
    const simChunks = sim.truth().map((t) => t.chunks.map((c) => c[1]).join(','));
    for (const p of pinned) {
      expect(p.chunkAttribution).toBe('exact');
      expect(simChunks).toContain(p.chunks.map((c) => c[1]).join(','));
    }
  });
});
