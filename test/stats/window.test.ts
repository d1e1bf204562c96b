import { describe, expect, it } from 'vitest';
import { avgPending, firstTokenWaitsMs, windowFigures, type TimedRequest } from '../../src/stats/index.js';
import { findStalls } from '../../src/stats/window.js';

// Steady single-token stream: one token every stepMs starting at firstMs.
function stream(
  sentAtMs: number,
  firstMs: number,
  stepMs: number,
  count: number,
  tokensPerChunk = 1,
): TimedRequest {
  const chunks: Array<[number, number]> = [];
  for (let i = 0; i < count; i++) chunks.push([firstMs + i * stepMs, tokensPerChunk]);
  return { sentAtMs, firstTokenAtMs: firstMs, endAtMs: firstMs + (count - 1) * stepMs, chunks, ok: true };
}

describe('window accounting', () => {
  const w = { openMs: 1000, closeMs: 2000 };

  it('counts tokens by arrival inside [open, close) and derives every seed figure', () => {
    // A: 10 ms steps from 905 to 2095 -> in-window chunks at 1005, 1015, ..., 1995 = 100 tokens
    const a = { ...stream(900, 905, 10, 120), ok: false, errorKind: 'aborted' as const, endAtMs: 2000 };
    // B: 20 ms steps from 1000 (on the open edge, counted) to 1580, ends inside: 30 tokens
    const b = stream(980, 1000, 20, 30);
    const f = windowFigures([a, b], w);
    expect(f.outputTokens).toBe(130);
    expect(f.totalTokensPerS).toBe(130);
    // A: 99 tokens after its first in 990 ms = 100 tok/s; B: 29 in 580 ms = 50 tok/s; median = 75
    expect(f.perRequestTokensPerS).toBeCloseTo(75, 9);
    // TBT: A 10 ms, B 20 ms -> 15
    expect(f.tbtMs).toBeCloseTo(15, 9);
    // TTFT: A 5 ms, B 20 ms
    expect(f.ttftMs).toBe(12.5);
    // active: A the whole window (1000 ms), B from 1000 to 1580 -> 1.58
    expect(f.avgActive).toBeCloseTo(1.58, 9);
    expect(f.completed).toBe(1);
    expect(f.measuredS).toBe(1);
    expect(f.abortedAtClose).toBe(1);
    expect(f.errors).toEqual({});
    // gaps: 99 of 10 ms and 29 of 20 ms
    expect(f.chunkGapMs.p50).toBe(10);
    expect(f.chunkGapMs.p99).toBe(20);
  });

  it('counts tokens, not chunks, when a chunk carries several (speculative decoding)', () => {
    // 3 tokens every 30 ms: 100 tok/s; in-window chunks at 1000..1990 = 34 chunks = 102 tokens
    const r = stream(990, 1000, 30, 40, 3);
    const f = windowFigures([r], w);
    expect(f.outputTokens).toBe(34 * 3);
    // rate uses tokens after the first chunk over the span: 33*3 / 0.99 s = 100 tok/s, not 102/0.99
    expect(f.perRequestTokensPerS).toBeCloseTo(100, 9);
    expect(f.tbtMs).toBeCloseTo(10, 9);
    expect(f.chunkGapMs.p50).toBe(30);
  });

  it('excludes requests with fewer than two in-window chunks from per-request rate, and counts errors by kind', () => {
    const one = stream(1900, 1990, 10, 1);
    const failed: TimedRequest = {
      sentAtMs: 1100,
      endAtMs: 1101,
      chunks: [],
      ok: false,
      errorKind: 'http_status',
    };
    const late: TimedRequest = { sentAtMs: 2100, endAtMs: 2200, chunks: [], ok: true };
    const f = windowFigures([one, failed, late], w);
    expect(f.perRequestTokensPerS).toBeNull();
    expect(f.tbtMs).toBeNull();
    expect(f.outputTokens).toBe(1);
    expect(f.errors).toEqual({ http_status: 1 });
    expect(f.ttftMs).toBe(90);
    expect(f.requestsSent).toBe(3);
  });

  it('measures waits for a first token and the time-average of pending requests', () => {
    const fast = stream(1000, 1010, 10, 5);
    // queued: sent at 900, never got a token, aborted at 2000
    const stuck: TimedRequest = { sentAtMs: 900, endAtMs: 2000, chunks: [], ok: false, errorKind: 'aborted' };
    expect(firstTokenWaitsMs([fast, stuck], w)).toEqual([10, 1100]);
    // pending: fast 1000..1010 (10 ms), stuck 1000..2000 (1000 ms) over 1000 ms
    expect(avgPending([fast, stuck], w)).toBeCloseTo(1.01, 9);
  });
});

describe('stalls', () => {
  it('counts long gaps per request, their union as stalled time, and keeps the longest gap', () => {
    const s = findStalls(
      [
        [0, 20],
        [20, 40],
        [100, 1600], // stall 1 ...
        [110, 1610], // ... the same pause seen by a second stream
        [5000, 5020],
        [6000, 7200], // stall 2
        [8000, 8900], // under 1 s: not a stall
      ],
      20,
    );
    expect(s).toEqual({ count: 3, totalMs: 1510 + 1200, maxGapMs: 1500 });
    // 10 x the median gap raises the bar on a slow stream: 1.2 s gaps at a 200 ms median are not stalls.
    expect(findStalls([[0, 1200]], 200).count).toBe(0);
    expect(findStalls([], null)).toEqual({ count: 0, totalMs: 0, maxGapMs: null });
  });

  it('reports stalls in the window figures', () => {
    const chunks: Array<[number, number]> = [];
    for (let t = 0; t < 3000; t += 10) if (t < 1000 || t >= 2500) chunks.push([t, 1]);
    const f = windowFigures([{ sentAtMs: -5, firstTokenAtMs: 0, endAtMs: 3000, chunks, ok: true }], {
      openMs: 0,
      closeMs: 3000,
    });
    expect(f.stalls).toEqual({ count: 1, totalMs: 1510, maxGapMs: 1510 });
  });
});
