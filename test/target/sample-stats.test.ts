import { describe, expect, it } from 'vitest';
import { joulesPerToken, tokensPerSPerW, windowEnergy } from '../../src/target/energy.js';
import {
  averagePowerW,
  prefixCacheHitRatio,
  specAcceptanceLength,
  summarizeSamples,
} from '../../src/target/sample-stats.js';

describe('summaries of server samples', () => {
  const samples = [
    {
      tMs: 0,
      running: 4,
      waiting: 0,
      specDrafts: 100,
      specAcceptedTokens: 200,
      prefixCacheHits: 1000,
      prefixCacheQueries: 2000,
      powerW: 400,
    },
    {
      tMs: 500,
      running: 8,
      waiting: 3,
      specDrafts: 150,
      specAcceptedTokens: 290,
      prefixCacheHits: 1900,
      prefixCacheQueries: 3000,
      powerW: 600,
    },
    {
      tMs: 1500,
      running: 6,
      waiting: null,
      specDrafts: 300,
      specAcceptedTokens: 560,
      prefixCacheHits: 4600,
      prefixCacheQueries: 6000,
      powerW: 600,
    },
  ];

  it('max running/waiting, acceptance length 1 + Δaccepted/Δdrafts, hit ratio Δhits/Δqueries', () => {
    expect(summarizeSamples(samples)).toEqual({
      maxRunning: 8,
      maxWaiting: 3,
      specAcceptanceLength: 1 + 360 / 200, // 2.8
      cacheHitRatio: 3600 / 4000, // 0.9
      avgPowerW: (500 * 500 + 600 * 1000) / 1500, // trapezoid: 566.67
    });
  });

  it('no data is null, not zero', () => {
    expect(summarizeSamples([])).toEqual({
      maxRunning: null,
      maxWaiting: null,
      specAcceptanceLength: null,
      cacheHitRatio: null,
      avgPowerW: null,
    });
    expect(specAcceptanceLength([{ tMs: 0, specDrafts: 5, specAcceptedTokens: 5 }])).toBeNull();
    // Drafts did not move: no speculation in this window.
    expect(
      specAcceptanceLength([
        { tMs: 0, specDrafts: 5, specAcceptedTokens: 5 },
        { tMs: 1, specDrafts: 5, specAcceptedTokens: 5 },
      ]),
    ).toBeNull();
  });

  it('a counter reset (server restart) voids the delta', () => {
    expect(
      prefixCacheHitRatio([
        { tMs: 0, prefixCacheHits: 100, prefixCacheQueries: 200 },
        { tMs: 1, prefixCacheHits: 5, prefixCacheQueries: 10 },
      ]),
    ).toBeNull();
  });

  it('SGLang reports acceptance length as a gauge: its mean', () => {
    expect(
      specAcceptanceLength([
        { tMs: 0, specAcceptLength: 2.5 },
        { tMs: 1, specAcceptLength: 3.5 },
      ]),
    ).toBe(3);
  });

  it('power: one reading is its own mean; unreadable readings are skipped', () => {
    expect(averagePowerW([{ tMs: 0, powerW: 300 }])).toBe(300);
    expect(
      averagePowerW([
        { tMs: 0, powerW: null },
        { tMs: 10, powerW: 200 },
        { tMs: 20, powerW: 400 },
      ]),
    ).toBe(300);
  });
});

describe('energy', () => {
  it('J per output token = P̄ · t / tokens; tok/s per W = throughput / P̄', () => {
    // 8 GPUs at 700 W for 30 s producing 63,000 tokens: 16,800 W · 30 s / 63,000 = 8 J/token.
    expect(joulesPerToken(5600, 30, 21000)).toBeCloseTo(8, 12);
    expect(tokensPerSPerW(2100, 700)).toBeCloseTo(3, 12);
    expect(joulesPerToken(0, 30, 100)).toBeNull();
    expect(joulesPerToken(500, 30, 0)).toBeNull();
    expect(tokensPerSPerW(100, 0)).toBeNull();
  });

  it('a window: average power from samples, then both figures', () => {
    const e = windowEnergy(
      [
        { tMs: 0, powerW: 1000 },
        { tMs: 1000, powerW: 1000 },
      ],
      10,
      5000,
    );
    expect(e).toEqual({ avgPowerW: 1000, joulesPerToken: 2, tokensPerSPerW: 0.5 });
    expect(windowEnergy([{ tMs: 0, running: 1 }], 10, 5000)).toEqual({
      avgPowerW: null,
      joulesPerToken: null,
      tokensPerSPerW: null,
    });
  });
});

describe('serverCellFigures', () => {
  it('gives a decode cell every server figure of its window', async () => {
    const { serverCellFigures } = await import('../../src/target/cell-figures.js');
    const { DecodeCell } = await import('../../src/results/schema.js');
    const samples = [
      {
        tMs: 0,
        running: 2,
        waiting: 1,
        specDrafts: 10,
        specAcceptedTokens: 10,
        prefixCacheHits: 0,
        prefixCacheQueries: 0,
        powerW: 700,
      },
      {
        tMs: 2000,
        running: 4,
        waiting: 0,
        specDrafts: 110,
        specAcceptedTokens: 260,
        prefixCacheHits: 300,
        prefixCacheQueries: 400,
        powerW: 700,
      },
    ];
    const f = serverCellFigures(samples, { measuredS: 2, outputTokens: 1400 });
    expect(f).toEqual({
      maxRunning: 4,
      maxWaiting: 1,
      specAcceptanceLength: 3.5,
      cacheHitRatio: 0.75,
      avgPowerW: 700,
      joulesPerToken: 1,
      tokensPerSPerW: 1,
    });
    // The figures fit the result schema as they are.
    const cell = {
      contextTokens: 1024,
      concurrency: 4,
      status: 'Valid',
      totalTokensPerS: 700,
      perRequestTokensPerS: 175,
      ttftMs: 10,
      tbtMs: 5,
      avgActive: 4,
      completed: 4,
      outputTokens: 1400,
      measuredS: 2,
      serverSamples: samples,
      ...f,
    };
    expect(DecodeCell.safeParse(cell).success).toBe(true);
  });
});
