import { describe, expect, it } from 'vitest';
import { chatBody, harness } from './handler-helpers.js';

describe('injected stalls with ground truth', () => {
  it('stall:count=3:ms=1500 (sim --stalls 3:1500): three streams go silent for 1.5 s, and the truth says when', () => {
    const h = harness({ faults: 'stall:count=3:ms=1500:at=4' });
    for (let i = 0; i < 5; i++) h.send('POST', '/v1/chat/completions', chatBody({ max_tokens: 30 }));
    h.clock.advance(60_000);
    const truth = h.ctx.truth.all();
    const stalled = truth.filter((t) => t.stall);
    expect(stalled).toHaveLength(3);
    for (const t of stalled) {
      expect(t.stall!.ms).toBe(1500);
      const gaps = t.chunks.slice(1).map((c, i) => c[0] - t.chunks[i]![0]);
      expect(Math.max(...gaps)).toBeGreaterThanOrEqual(1500);
      // the silence starts where the truth says: the last chunk before it was sent at or before atMs
      const before = t.chunks.filter((c) => c[0] <= t.stall!.atMs);
      expect(before.length).toBeGreaterThan(0);
      expect(t.chunks.some((c) => c[0] >= t.stall!.atMs + 1500)).toBe(true);
    }
    for (const t of truth.filter((x) => !x.stall)) {
      const gaps = t.chunks.slice(1).map((c, i) => c[0] - t.chunks[i]![0]);
      expect(Math.max(...gaps)).toBeLessThan(100);
    }
  });
});
