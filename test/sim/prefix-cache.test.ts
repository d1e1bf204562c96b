import { describe, expect, it } from 'vitest';
import type { Flavor } from '../../src/sim/profile-schema.js';
import { Scheduler, type RequestSpec } from '../../src/sim/scheduler.js';
import { blockHashesOf, outputTokenId } from '../../src/sim/tokenizer.js';
import { predictBlockCache, predictLlamacpp, type ServedRequest } from '../helpers/prefix-cache-predict.js';
import { mooncakeTrace } from '../helpers/mooncake-trace.js';
import { drive, req, testProfile } from './helpers.js';

const BS = 16; // KV block
const HASH_BLOCK = 512; // a Mooncake trace's hash id stands for 512 prompt tokens

interface TraceLine {
  hashIds: number[];
  inputLength: number;
  outputLength: number;
  tokens?: number[]; // the prompt itself, instead of its hash blocks
}

// A Mooncake-format trace (test/helpers/mooncake-trace.ts): most requests continue an earlier one.
const trace = (n: number, seed: number): TraceLine[] =>
  mooncakeTrace({ requests: n, block: HASH_BLOCK, seed }).rows.map((r) => ({
    hashIds: r.hash_ids,
    inputLength: r.input_length,
    outputLength: r.output_length,
  }));

// Token k of hash block h: two lines that share h share its tokens, a cut block is a prefix of the whole one.
const promptOf = (l: TraceLine): number[] =>
  l.tokens ??
  Array.from(
    { length: l.inputLength },
    (_, i) => l.hashIds[Math.floor(i / HASH_BLOCK)]! * 1024 + (i % HASH_BLOCK),
  );

// What the sim generates: content words, one token each (no reasoning in these profiles).
const outputOf = (n: number): number[] => Array.from({ length: n }, (_, j) => outputTokenId(j, 0));

// Serves the lines one at a time through the scheduler in virtual time; returns each request's cached tokens.
function serveOneByOne(s: Scheduler, lines: readonly TraceLine[]): number[] {
  let t = 0;
  return lines.map((l, i) => {
    const ids = Float64Array.from(promptOf(l));
    const spec: RequestSpec = {
      id: `r${i}`,
      arrivalMs: t,
      promptTokens: ids.length,
      blockHashes: blockHashesOf(ids, BS),
      tokenIds: ids,
      maxTokens: l.outputLength,
      ignoreEos: true,
    };
    const seq = s.submit(spec);
    const log = drive(s, t);
    expect(log.at(-1)).toMatchObject({ id: `r${i}`, finish: 'length' });
    t = log.at(-1)!.t + 1;
    return seq.cachedTokens!;
  });
}

const served = (lines: readonly TraceLine[]): ServedRequest[] =>
  lines.map((l) => ({ prompt: promptOf(l), output: outputOf(l.outputLength), finish: 'length' }));

// With room for everything: the longest run of leading full prompt blocks whose tokens (and all before them) an
// earlier request computed, at most (prompt - 1) / 16 blocks.
function allHits(reqs: readonly ServedRequest[]): number[] {
  const ids = new Map<string, number>(); // a block's tokens after the id of the block before it -> its id
  const seen = new Set<number>();
  return reqs.map((r) => {
    const kv = [...r.prompt, ...r.output.slice(0, -1)];
    const blocks: number[] = [];
    for (let b = 0; (b + 1) * BS <= kv.length; b++) {
      const k = `${blocks.at(-1) ?? -1}|${kv.slice(b * BS, (b + 1) * BS).join()}`;
      if (!ids.has(k)) ids.set(k, ids.size);
      blocks.push(ids.get(k)!);
    }
    let hit = 0;
    while (hit < Math.floor((r.prompt.length - 1) / BS) && seen.has(blocks[hit]!)) hit++;
    for (const k of blocks) seen.add(k);
    return hit * BS;
  });
}

const lines = trace(300, 7);
const blocksOf = (l: TraceLine) => Math.ceil((l.inputLength + l.outputLength) / BS);
const need = Math.max(...lines.map(blocksOf)); // one request's blocks, at most
const everything = lines.reduce((a, l) => a + blocksOf(l), 0); // a pool that never evicts

describe('block prefix cache: a Mooncake-style trace served one request at a time', () => {
  const blockFlavors: Flavor[] = ['vllm', 'sglang', 'trtllm'];

  for (const flavor of blockFlavors) {
    it(`${flavor}: every block seen before hits when the pool holds everything`, () => {
      const blocks = everything;
      const s = new Scheduler(
        testProfile({ flavor, kvCapacityTokens: blocks * BS, maxModelLen: 8192, maxBatchedTokens: 8192 }),
      );
      const got = serveOneByOne(s, lines);
      const want = allHits(served(lines));
      expect(got).toEqual(want);
      expect(predictBlockCache(served(lines), { blockSize: BS, blocks })).toEqual(want);
      expect(want.filter((h) => h > 0).length).toBeGreaterThan(150);
      // What the engine reports: the prefix-cache counters sum the truth.
      expect(s.kv.hits).toBe(want.reduce((a, b) => a + b, 0));
      expect(s.kv.queries).toBe(lines.reduce((a, l) => a + l.inputLength, 0));
    });
  }

  for (const extra of [4, 60]) {
    for (const flavor of blockFlavors) {
      it(`${flavor}: a pool ${extra} blocks over one request's need gives the predicted LRU hits`, () => {
        const blocks = need + extra;
        const s = new Scheduler(
          testProfile({
            flavor,
            kvCapacityTokens: blocks * BS,
            maxModelLen: blocks * BS,
            maxBatchedTokens: 8192,
          }),
        );
        const got = serveOneByOne(s, lines);
        const want = predictBlockCache(served(lines), { blockSize: BS, blocks });
        expect(got).toEqual(want);
        const all = allHits(served(lines));
        expect(want.reduce((a, b) => a + b, 0)).toBeLessThan(all.reduce((a, b) => a + b, 0));
        expect(want.filter((h) => h > 0).length).toBeGreaterThan(50);
      });
    }
  }

  it("a block filled like a cached one is cached too, and outlives the first one's eviction (vLLM's pool)", () => {
    // A is two whole blocks: sent again, it hits one (a prompt token is always computed) and computes its second
    // block again, into a new block cached under the same hash. B then takes the first copy from the free queue,
    // and C (A and 8 tokens more) still hits both of A's blocks, through the second copy.
    const a = Array.from({ length: 32 }, (_, i) => 1000 + i);
    const b = Array.from({ length: 80 }, (_, i) => 5000 + i);
    const c = [...a, ...Array.from({ length: 8 }, (_, i) => 9000 + i)];
    const prompts = [a, a, b, c];
    const reqs: ServedRequest[] = prompts.map((p) => ({ prompt: p, output: outputOf(3), finish: 'length' }));
    const want = predictBlockCache(reqs, { blockSize: BS, blocks: 8 });
    expect(want).toEqual([0, 16, 0, 32]);
    const s = new Scheduler(testProfile({ kvCapacityTokens: 8 * BS, maxModelLen: 8 * BS }));
    const trace = prompts.map((p) => ({ hashIds: [], inputLength: p.length, outputLength: 3, tokens: p }));
    expect(serveOneByOne(s, trace)).toEqual(want);
  });
});

describe('llama.cpp: slots and the host-memory prompt cache (its own rule)', () => {
  it('with -np 1 and prompts A, B, A, B the third and fourth compute one token (docs/engines.md)', () => {
    const a: TraceLine = { hashIds: [1], inputLength: 300, outputLength: 5 };
    const b: TraceLine = { hashIds: [2], inputLength: 300, outputLength: 5 };
    const s = new Scheduler(testProfile({ flavor: 'llamacpp', maxNumSeqs: 1, kvCapacityTokens: 4096 }));
    const got = serveOneByOne(s, [a, b, a, b]);
    expect(got).toEqual([0, 0, 299, 299]);
    expect(predictLlamacpp(served([a, b, a, b]), { slots: 1, cacheTokens: 4096 })).toEqual(got);
  });

  it('without the prompt cache (--cache-ram 0) a slot keeps only its last request', () => {
    const a: TraceLine = { hashIds: [1], inputLength: 300, outputLength: 5 };
    const b: TraceLine = { hashIds: [2], inputLength: 300, outputLength: 5 };
    const s = new Scheduler(
      testProfile({ flavor: 'llamacpp', maxNumSeqs: 1, kvCapacityTokens: 4096, promptCacheTokens: 0 }),
    );
    expect(serveOneByOne(s, [a, a, b, a])).toEqual([0, 299, 0, 0]);
  });

  it("without token ids (the twin's cells) slots compare whole blocks, and the cache counts their tokens", () => {
    const run = (cacheTokens: number) => {
      const s = new Scheduler(
        testProfile({
          flavor: 'llamacpp',
          maxNumSeqs: 1,
          kvCapacityTokens: 4096,
          promptCacheTokens: cacheTokens,
        }),
      );
      return ['a', 'b', 'a'].map((id, i) => {
        const seq = s.submit(req(`${id}${i}`, 300, 5, { prefix: id === 'a' ? 1 : 2, arrivalMs: i * 1000 }));
        drive(s, i * 1000);
        return seq.cachedTokens;
      });
    };
    // A leaves 18 whole blocks (288 tokens): a cache of 300 tokens keeps it for A's return, one of 200 does not.
    expect(run(300)).toEqual([0, 0, 288]);
    expect(run(200)).toEqual([0, 0, 0]);
  });

  it("a Mooncake-style trace on 1, 2 and 4 slots with prompt caches of 0 to 100K tokens: the rule's hits", () => {
    const total: number[] = [];
    for (const [slots, cacheTokens] of [
      [1, 0],
      [1, 3000],
      [1, 100_000],
      [2, 3000],
      [4, 20_000],
    ] as const) {
      const s = new Scheduler(
        testProfile({
          flavor: 'llamacpp',
          maxNumSeqs: slots,
          kvCapacityTokens: 8192 * slots,
          maxModelLen: 8192,
          maxBatchedTokens: 8192,
          promptCacheTokens: cacheTokens,
        }),
      );
      const got = serveOneByOne(s, lines);
      expect({ slots, cacheTokens, got }).toEqual({
        slots,
        cacheTokens,
        got: predictLlamacpp(served(lines), { slots, cacheTokens }),
      });
      total.push(got.reduce((a, b) => a + b, 0));
    }
    // A larger cache keeps more (156,289 / 157,443 / 218,378 tokens on one slot), so do more slots and cache.
    expect(total[0]).toBeLessThan(total[1]!);
    expect(total[1]).toBeLessThan(total[2]!);
    expect(total[3]).toBeLessThan(total[4]!);
  });
});
