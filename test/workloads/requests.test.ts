import { describe, expect, it } from 'vitest';
import {
  mooncakeCacheable,
  readWorkload,
  workloadRequests,
  type LoadedWorkload,
  type RequestContext,
  type TraceLine,
  type WorkloadSpec,
} from '../../src/workloads/index.js';

const ctx: RequestContext = { seed: 7, row: 'r', salt: 'run|level', maxOutput: 256 };
const spec = (text: string) => readWorkload(text) as WorkloadSpec;
const requests = (text: string, c: Partial<RequestContext> = {}, lines?: TraceLine[]) =>
  workloadRequests({ spec: spec(text), ...(lines ? { lines } : {}) } as LoadedWorkload, { ...ctx, ...c });

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs: number[]) => {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
};

describe('lengths drawn from a shape', () => {
  const n = 20_000;
  const draws = (text: string) => {
    const w = requests(text);
    return Array.from({ length: n }, (_, i) => w.request(i));
  };

  it('normal(8K,2K): mean and sd within 4 standard errors (sigma/sqrt(n), sigma/sqrt(2n))', () => {
    const input = draws('lengths:in=normal(8K,2K)').map((r) => r.inputTokens);
    expect(Math.abs(mean(input) - 8192)).toBeLessThan((4 * 2048) / Math.sqrt(n));
    expect(Math.abs(sd(input) - 2048)).toBeLessThan((4 * 2048) / Math.sqrt(2 * n));
    expect(input.every((x) => Number.isInteger(x) && x >= 1)).toBe(true);
  });

  it('uniform(128,1K) outputs: every value in the range, mean and sd of the discrete uniform within 4 SE', () => {
    const out = draws('lengths:in=1K,out=uniform(128,1K)').map((r) => r.maxOutput);
    // 897 values 128..1024: mean 576, sd sqrt((897^2 - 1) / 12); SE(sd) of a uniform: sqrt(0.8) sigma / (2 sqrt(n)).
    const sigma = Math.sqrt((897 ** 2 - 1) / 12);
    expect(Math.min(...out)).toBe(128);
    expect(Math.max(...out)).toBe(1024);
    expect(Math.abs(mean(out) - 576)).toBeLessThan((4 * sigma) / Math.sqrt(n));
    expect(Math.abs(sd(out) - sigma)).toBeLessThan((4 * Math.sqrt(0.8) * sigma) / (2 * Math.sqrt(n)));
  });

  it('lognormal(1K,0.5): the log has mean ln(1024) and sd 0.5 within 4 SE', () => {
    const logs = draws('lengths:in=lognormal(1K,0.5)').map((r) => Math.log(r.inputTokens));
    expect(Math.abs(mean(logs) - Math.log(1024))).toBeLessThan((4 * 0.5) / Math.sqrt(n));
    expect(Math.abs(sd(logs) - 0.5)).toBeLessThan((4 * 0.5) / Math.sqrt(2 * n));
  });

  it('without out= the output is --max-output; each request is unique and seeded by its index', () => {
    const w = requests('lengths:in=normal(8K,2K)');
    const r = w.request(3);
    expect(r.maxOutput).toBe(256);
    expect(r.prompt).toEqual({ kind: 'unique', salt: 'run|level', index: 3, tokens: r.inputTokens });
    expect(r.cacheableTokens).toBe(0);
    expect(requests('lengths:in=normal(8K,2K)').request(3)).toEqual(r); // same seed and row: same draw
    const others = [
      requests('lengths:in=normal(8K,2K)', { seed: 8 }),
      requests('lengths:in=normal(8K,2K)', { row: 'x' }),
    ];
    for (const o of others) expect(o.request(3).inputTokens).not.toBe(r.inputTokens);
  });

  it('a request longer than the window is fitted into it: output first, then the input', () => {
    const w = requests('lengths:in=normal(8K,2K),out=const(1K)', { maxModelLen: 8192 });
    const rs = Array.from({ length: 2000 }, (_, i) => w.request(i));
    expect(rs.every((r) => r.inputTokens + r.maxOutput <= 8192 && r.maxOutput === 1024)).toBe(true);
    expect(rs.some((r) => r.inputTokens > 7000)).toBe(true); // truncated, not clamped to one value
    const file = requests('lengths:file=f', { maxModelLen: 1000 }, [{ line: 1, input: 900, output: 500 }]);
    expect(file.request(0)).toMatchObject({ inputTokens: 500, maxOutput: 500 });
    expect(file.request(1).prompt).toMatchObject({ index: 1 }); // the file cycles, each request still unique
  });
});

describe('shared prefix, fixed and multi-turn requests', () => {
  it('shared-prefix: request i is prefix i mod P, cacheable L after the prefix first served', () => {
    const w = requests('shared-prefix:prefixes=3,prefix=2K,suffix=256');
    const rs = [0, 1, 2, 3, 7].map((i) => w.request(i));
    expect(rs.map((r) => (r.prompt as { prefix: number }).prefix)).toEqual([0, 1, 2, 0, 1]);
    expect(rs.map((r) => r.cacheableTokens)).toEqual([0, 0, 0, 2048, 2048]);
    expect(rs[0]).toMatchObject({ inputTokens: 2304, maxOutput: 256 });
    expect(() => requests('shared-prefix:prefix=8K,suffix=1K', { maxModelLen: 9000 })).toThrow(
      /a prompt of 9,216 tokens and 256 of output pass the model's window of 9,000/,
    );
  });

  it('fixed: a unique prompt of the row context per request', () => {
    const w = requests('fixed', { contextTokens: 8192 });
    expect(w.request(5)).toEqual({
      inputTokens: 8192,
      maxOutput: 256,
      prompt: { kind: 'unique', salt: 'run|level', index: 5, tokens: 8192 },
      cacheableTokens: 0,
    });
  });

  it('multi-turn: context S + tM + (t-1)A, cacheable the previous turn with its answer, cut at the cap', () => {
    // S 1,000, M 100, A 256: contexts 1,100 / 1,456 / 1,812 / 2,168; a cap of 2,000 keeps 3 turns of 5.
    const w = requests('multi-turn:turns=5,system=1000,message=100,cap=2000,think=2s');
    expect(w.turns).toBe(3);
    const t = [1, 2, 3].map((k) => w.request(4, k));
    expect(t.map((r) => r.inputTokens)).toEqual([1100, 1456, 1812]);
    expect(t.map((r) => r.cacheableTokens)).toEqual([1000, 1100 + 256, 1456 + 256]);
    expect(t.map((r) => r.thinkMs)).toEqual([undefined, 2000, 2000]);
    expect(w.request(0, 1).cacheableTokens).toBe(0); // the first conversation finds no system prompt cached
    expect(t[2]!.prompt).toEqual({
      kind: 'turn',
      salt: 'run|level',
      conversation: 4,
      turn: 3,
      systemTokens: 1000,
      messageTokens: 100,
    });
    expect(() => w.request(4, 4)).toThrow(/turn 4 of a 3-turn conversation/);
    // The window less the answer caps too; a first turn past it is a clear error.
    expect(requests('multi-turn:turns=9,message=1K', { maxModelLen: 4096 }).turns).toBe(3);
    expect(() => requests('multi-turn:message=1K,system=4K', { maxModelLen: 4096 })).toThrow(
      /the first turn \(5,120 tokens\) already passes the context cap of 3,840 \(the model's window less the answer\)/,
    );
  });

  it('multi-turn exponential think times: mean within 4 SE, the same per (item, turn) on every call', () => {
    const w = requests('multi-turn:turns=2,think=exp(2s)');
    const xs = Array.from({ length: 20_000 }, (_, i) => w.request(i, 2).thinkMs!);
    expect(Math.abs(mean(xs) - 2000)).toBeLessThan((4 * 2000) / Math.sqrt(xs.length));
    expect(Math.abs(sd(xs) - 2000)).toBeLessThan((4 * 2000) / Math.sqrt(xs.length)); // exponential: sd = mean
    expect(requests('multi-turn:turns=2,think=exp(2s)').request(17, 2).thinkMs).toBe(xs[17]);
  });
});

describe('Mooncake requests', () => {
  // Block 4: line 2 reuses block 0 then diverges; line 3 reuses 0 and 1 and ends in a partial new block;
  // line 4 reuses every block of line 1 (a partial last block counts the tokens it uses).
  const lines: TraceLine[] = [
    { line: 1, input: 7, output: 2, hashIds: [0, 1] },
    { line: 2, input: 8, output: 2, hashIds: [0, 2] },
    { line: 3, input: 10, output: 2, hashIds: [0, 1, 3] },
    { line: 4, input: 6, output: 2, hashIds: [0, 1] },
    { line: 5, input: 4, output: 2, hashIds: [9] },
  ];

  it('cacheable: the leading blocks seen in an earlier line, hand-computed', () => {
    expect(mooncakeCacheable(lines, 4)).toEqual([0, 4, 8, 6, 0]);
  });

  it('each pass over the trace has its own salt, the same reuse and the same lengths', () => {
    const w = requests('mooncake:file=t,block=4', {}, lines);
    const first = w.request(2);
    expect(first).toEqual({
      inputTokens: 10,
      maxOutput: 2,
      prompt: { kind: 'blocks', salt: 'run|level', ids: [0, 1, 3], blockTokens: 4, tokens: 10 },
      cacheableTokens: 8,
    });
    const second = w.request(7);
    expect(second.prompt).toMatchObject({ salt: 'run|level#1', ids: [0, 1, 3] });
    expect(second.cacheableTokens).toBe(8);
  });
});
