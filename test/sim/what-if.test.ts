import { describe, expect, it } from 'vitest';
import { buildPlan } from '../../src/plan/plan.js';
import { loadProfile } from '../../src/sim/profiles.js';
import { overCapacity, simulateCell } from '../../src/sim/what-if.js';

const tiny = loadProfile('tiny'); // 16 sequences at once, 2 ms decode steps, 300,000 KV tokens

describe('what-if (the runner rules on the engine model)', () => {
  it('calls a cell Requests queued by the runner rule: waiting in at least half the samples', () => {
    const fits = simulateCell(tiny, { contextTokens: 1024, concurrency: 8, maxOutput: 64, windowS: 4 });
    expect(fits.status).toBe('Valid');
    expect(fits.maxWaiting).toBe(0);
    const queued = simulateCell(tiny, { contextTokens: 1024, concurrency: 32, maxOutput: 64, windowS: 4 });
    expect(queued.status).toBe('Requests queued');
    // 16 run at once: the rate is capped near 16 / step, never 32 / step
    expect(queued.totalTokensPerS).toBeLessThan(16 * 500 * 1.05);
    expect(queued.avgActive).toBeLessThan(16.5);
  });

  it('counts only what arrives inside the window, as the runner does', () => {
    const f = simulateCell(tiny, { contextTokens: 1024, concurrency: 4, maxOutput: 64, windowS: 2 });
    // 4 streams, about one token per 2 ms step each: ~2,000 tok/s; the total is the window's tokens over its length
    expect(f.totalTokensPerS).toBeCloseTo(f.outputTokens / 2, 6);
    expect(f.totalTokensPerS).toBeGreaterThan(1800);
    expect(f.totalTokensPerS).toBeLessThan(2200);
    expect(f.tbtMs).toBeGreaterThanOrEqual(2);
  });

  it('skips a cell exactly where the plan does (one capacity rule)', () => {
    const kv = tiny.kvCapacityTokens;
    const plan = buildPlan({
      kvCapacityTokens: kv,
      maxOutput: 4096,
      contexts: [16384, 32768],
      concurrency: [8, 16],
    });
    for (const c of plan.cells)
      expect(overCapacity(tiny, c.contextTokens, c.concurrency, 4096)).toBe(c.status === 'Over capacity');
    expect(plan.cells.some((c) => c.status === 'Over capacity')).toBe(true);
    expect(plan.cells.some((c) => c.status === 'run')).toBe(true);
  });
});
