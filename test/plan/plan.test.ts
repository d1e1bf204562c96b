import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { contextLabel } from '../../src/format/index.js';
import {
  buildPlan,
  decodeContexts,
  estimateDuration,
  isOverCapacity,
  parseTokenCount,
  prefillContexts,
} from '../../src/plan/index.js';

interface SeedRow {
  phase: string;
  contextTokens: number;
  concurrency: number;
  status: string;
}
const seed = (name: string): SeedRow[] =>
  (
    JSON.parse(readFileSync(new URL(`../fixtures/seeds/${name}`, import.meta.url), 'utf8')) as {
      rows: SeedRow[];
    }
  ).rows;
const RTX = seed('000_9816ff1652ee407d.json');
const H200 = seed('001_e957ef8128caa214.json');
const key = (c: number, n: number) => `${c}x${n}`;

describe('contexts', () => {
  it('reproduces the seeds: 8K..512K then 1019K, prefill adds 1024K', () => {
    const d = decodeContexts(1_048_576, 4096);
    expect(d.map(contextLabel)).toEqual(['8K', '16K', '32K', '64K', '128K', '256K', '512K', '1019K']);
    expect(d.at(-1)).toBe(1_043_456);
    const p = prefillContexts(1_048_576, d);
    expect(p.map(contextLabel)).toEqual([...d.map(contextLabel), '1024K']);
    expect(p.at(-1)).toBe(1_048_320);
    // the seeds' context tokens, exactly
    const seedDecode = [...new Set(RTX.filter((r) => r.phase === 'decode').map((r) => r.contextTokens))];
    expect(d).toEqual(seedDecode);
  });

  it('does not repeat the largest context when it is a power of two, and handles tiny windows', () => {
    // 32768 - 4096 - 1024 = 27648: 8K, 16K, then 27K
    expect(decodeContexts(32_768, 4096)).toEqual([8192, 16384, 27648]);
    // room exactly 16384: doubling ends on it, no duplicate
    expect(decodeContexts(16384 + 4096 + 1024, 4096)).toEqual([8192, 16384]);
    expect(decodeContexts(4096, 4096)).toEqual([]);
    expect(decodeContexts(8192, 2048)).toEqual([5120]);
  });

  it('parses token counts with K and M suffixes', () => {
    expect(parseTokenCount('8K')).toBe(8192);
    expect(parseTokenCount('1019k')).toBe(1_043_456);
    expect(parseTokenCount('1M')).toBe(1_048_576);
    expect(parseTokenCount('32768')).toBe(32768);
    expect(parseTokenCount('0')).toBeUndefined();
    expect(parseTokenCount('8KB')).toBeUndefined();
    expect(parseTokenCount('1.5')).toBeUndefined();
  });
});

describe('Over capacity rule', () => {
  it('is strict: exactly at capacity still runs', () => {
    expect(isOverCapacity(8192, 2, 4096, 2 * 12288)).toBe(false);
    expect(isOverCapacity(8192, 2, 4096, 2 * 12288 - 1)).toBe(true);
    expect(isOverCapacity(8192, 128, 4096, undefined)).toBe(false);
  });

  for (const [name, rows, capacity] of [
    ['H200 seed', H200, 2_500_000],
    ['RTX seed', RTX, 3_500_000],
  ] as const) {
    it(`marks exactly the Over capacity cells of the ${name} at ${capacity}`, () => {
      const plan = buildPlan({ maxModelLen: 1_048_576, kvCapacityTokens: capacity, maxOutput: 4096 });
      const planned = new Set(
        plan.cells
          .filter((c) => c.status === 'Over capacity')
          .map((c) => key(c.contextTokens, c.concurrency)),
      );
      const seeded = new Set(
        rows
          .filter((r) => r.phase === 'decode' && r.status === 'Over capacity')
          .map((r) => key(r.contextTokens, r.concurrency)),
      );
      expect(seeded.size).toBeGreaterThan(15);
      expect([...planned].sort()).toEqual([...seeded].sort());
      // every seed decode cell is in the plan
      const all = new Set(plan.cells.map((c) => key(c.contextTokens, c.concurrency)));
      for (const r of rows.filter((x) => x.phase === 'decode'))
        expect(all.has(key(r.contextTokens, r.concurrency))).toBe(true);
      expect(plan.cells).toHaveLength(64);
    });
  }
});

describe('buildPlan', () => {
  it('orders contexts then concurrency ascending, and marks contexts that do not fit', () => {
    const plan = buildPlan({
      maxModelLen: 32768,
      maxOutput: 1024,
      contexts: [32000, 8192],
      concurrency: [4, 1],
    });
    expect(plan.cells.map((c) => [c.contextTokens, c.concurrency, c.status])).toEqual([
      [8192, 1, 'run'],
      [8192, 4, 'run'],
      [32000, 1, 'Too long'],
      [32000, 4, 'Too long'],
    ]);
    expect(plan.prefill.map((p) => p.contextTokens)).toEqual([8192, 32000, 32512]);
    expect(plan.prefill.map((p) => p.status)).toEqual(['run', 'run', 'run']);
  });

  it('refuses to guess contexts without a max model length', () => {
    expect(() => buildPlan({ maxOutput: 4096 })).toThrow(/max model length/);
  });

  it('estimates duration from windows, ramps, settles and cold prefill', () => {
    const plan = buildPlan({
      maxModelLen: 65536,
      maxOutput: 4096,
      concurrency: [1, 2],
      kvCapacityTokens: 40000,
    });
    // contexts 8K, 16K, 32K, 59K; runs 8Kx1, 8Kx2, 16Kx1, 32Kx1 (2*20480 > 40000, 60416+4096 > 40000)
    expect(plan.contexts).toEqual([8192, 16384, 32768, 60416]);
    expect(plan.cells.filter((c) => c.status === 'run')).toHaveLength(4);
    const e = estimateDuration(plan, {
      duration: 30,
      prefillRepeats: 1,
      cellOverheadS: 3,
      requestOverheadS: 0,
      prefill: { a: 1 / 1000, b: 0 },
    });
    expect(e.cellsToRun).toBe(4);
    expect(e.decodeS).toBe(4 * 33);
    const prefillTokens = 1024 + 8192 + 16384 + 32768 + 60416 + 65280 + 8192; // connect, points, slot 2 of 8K
    expect(e.prefillS).toBeCloseTo(prefillTokens / 1000, 6);
    expect(e.totalS).toBeCloseTo(4 * 33 + prefillTokens / 1000, 6);
    // In the run's order: connect, then per context its prefill point and its cells.
    expect(
      e.steps.map((s) => `${s.kind} ${s.contextTokens}${s.concurrency ? `x${s.concurrency}` : ''}`),
    ).toEqual([
      'connect 1024',
      'prefill 8192',
      'cell 8192x1',
      'cell 8192x2',
      'prefill 16384',
      'cell 16384x1',
      'cell 16384x2',
      'prefill 32768',
      'cell 32768x1',
      'cell 32768x2',
      'prefill 60416',
      'cell 60416x1',
      'cell 60416x2',
      'prefill 65280',
    ]);
    expect(e.steps.find((s) => s.contextTokens === 8192 && s.concurrency === 2)?.prompts).toBe(1);

    // --repeats 3: each cell runs three windows with their ramps and settles; its warm-up prefills its new
    // slots once (the later repeats find them cached); prefill points cost what the run is given to send.
    const r = estimateDuration(plan, {
      duration: 30,
      prefillRepeats: 3,
      repeats: 3,
      cellOverheadS: 3,
      requestOverheadS: 0,
      prefill: { a: 1 / 1000, b: 0 },
    });
    expect(r.decodeS).toBe(3 * 4 * 33);
    const points = 8192 + 16384 + 32768 + 60416 + 65280;
    expect(r.prefillS).toBeCloseTo((1024 + 3 * points + 8192) / 1000, 6);
    expect(r.steps.find((s) => s.contextTokens === 8192 && s.concurrency === 2)?.prompts).toBe(1);
    expect(r.steps.find((s) => s.kind === 'prefill' && s.contextTokens === 8192)?.prompts).toBe(3);
  });
});
