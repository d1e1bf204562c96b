import { describe, expect, it } from 'vitest';
import { buildPlan } from '../../src/plan/plan.js';
import { loadProfile } from '../../src/sim/profiles.js';
import { firstTokenDeadlineMs, overCapacity, simulateCell } from '../../src/sim/what-if.js';

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

  it('skips a cell exactly where the plan does: N x (C + max output) over the KV capacity', () => {
    expect(tiny.kvCapacityTokens).toBe(300_000);
    // By hand, max output 4,096: 8 x 20,480 = 163,840 and 8 x 36,864 = 294,912 fit; 16 x 20,480 = 327,680 and
    // 16 x 36,864 = 589,824 do not; 10 x (25,904 + 4,096) = 300,000 exactly fits, one token more does not.
    const over: Array<[number, number, boolean]> = [
      [16384, 8, false],
      [32768, 8, false],
      [16384, 16, true],
      [32768, 16, true],
      [25904, 10, false],
      [25905, 10, true],
    ];
    for (const [c, n, expected] of over) expect(overCapacity(tiny, c, n, 4096), `${c} x ${n}`).toBe(expected);
    const plan = buildPlan({
      kvCapacityTokens: tiny.kvCapacityTokens,
      maxOutput: 4096,
      contexts: [16384, 32768],
      concurrency: [8, 16],
    });
    expect(plan.cells.map((c) => [c.contextTokens, c.concurrency, c.status === 'Over capacity'])).toEqual(
      expect.arrayContaining(over.slice(0, 4)),
    );
    expect(plan.cells).toHaveLength(4);
  });
});

describe('what-if warm-up (as the runner warms the cache)', () => {
  it("gives up a warm-up at the client's own first-token deadline", async () => {
    const { firstTokenTimeoutMs } = await import('../../src/client/transport/timeouts.js');
    for (const tokens of [0, 1024, 131_072, 1_000_000])
      expect(firstTokenDeadlineMs(tokens)).toBe(firstTokenTimeoutMs(tokens));
  });

  it('starts the ramp half cold when the cold prefill outlasts the deadline, warm when the cell before cached it', () => {
    // 16 x 32K tokens at 4K tok/s: 128 s of cold prefill, past the 92.8 s deadline.
    const slow = loadProfile('tiny', { prefillTokensPerS: [[1024, 4000]], kvCapacityTokens: 2_000_000 });
    const plan = { contextTokens: 32_000, concurrency: 16, maxOutput: 64, windowS: 2 };
    const cold = simulateCell(slow, plan);
    expect(cold.rampTimedOut).toBe(true);
    // The cell before (8 requests) left half the slots cached: 64 s of cold prefill, inside the deadline.
    const warm = simulateCell(slow, { ...plan, cachedSlots: 8 });
    expect(warm.rampTimedOut).toBe(false);
    expect(warm.totalTokensPerS).toBeGreaterThan(cold.totalTokensPerS * 2);
  });
});
