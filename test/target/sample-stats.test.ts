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
