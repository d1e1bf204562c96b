import { describe, expect, it } from 'vitest';
import { mergeCellRepeats } from '../../src/bench/cell-repeats.js';
import type { DecodeCell } from '../../src/results/schema.js';

const cell = (over: Partial<DecodeCell>): DecodeCell => ({
  contextTokens: 8192,
  concurrency: 4,
  status: 'Valid',
  totalTokensPerS: 400,
  perRequestTokensPerS: 100,
  ttftMs: 50,
  tbtMs: 10,
  avgActive: 4,
  completed: 10,
  outputTokens: 4000,
  measuredS: 10,
  requestsSent: 14,
  ...over,
});

describe('mergeCellRepeats', () => {
  it('means the figures, adds the counts, and keeps each repeat', () => {
    const m = mergeCellRepeats([
      cell({ totalTokensPerS: 390, startedAt: 'a' }),
      cell({ totalTokensPerS: 410, errors: { timeout_idle: 1 } }),
      cell({ totalTokensPerS: 400, errors: { timeout_idle: 2 } }),
    ]);
    expect(m.totalTokensPerS).toBe(400);
    expect(m.intervals!.totalTokensPerS!.lo).toBeLessThan(390);
    expect(m.intervals!.ttftMs).toBeNull(); // three equal TTFTs, no within-repeat interval: nothing to say
    expect(m.completed).toBe(30);
    expect(m.measuredS).toBe(30);
    expect(m.requestsSent).toBe(42);
    expect(m.errors).toEqual({ timeout_idle: 3 });
    expect(m.startedAt).toBe('a');
    expect(m.repeats!.map((r) => r.totalTokensPerS)).toEqual([390, 410, 400]);
  });

  it('keeps the worst status seen, and leaves failed repeats out of the figures', () => {
    const m = mergeCellRepeats([
      cell({ status: 'Failed', totalTokensPerS: null, error: 'boom' }),
      cell({ status: 'Requests queued', queueEvidence: 'peak 3 of 4' }),
      cell({}),
    ]);
    expect(m.status).toBe('Requests queued');
    expect(m.queueEvidence).toBe('peak 3 of 4');
    expect(m.totalTokensPerS).toBe(400);
    expect(m.repeats!.map((r) => r.status)).toEqual(['Failed', 'Requests queued', 'Valid']);
    expect(m.repeats![0]!.error).toBe('boom');
  });

  it('keeps a stream held back in any repeat: its timings mark the merged figures too', () => {
    const free = {
      batched: false,
      requests: 4,
      eventsPerRead: 1,
      eventsPerStep: 1,
      firstHeldShare: 0,
      heldMs: 9,
    };
    const held = { ...free, batched: true, eventsPerRead: 20, firstHeldShare: 1, heldMs: 200 };
    const m = mergeCellRepeats([cell({ streamBatching: held }), cell({ streamBatching: free })]);
    expect(m.streamBatching).toEqual(held);
    expect(mergeCellRepeats([cell({ streamBatching: free }), cell({})]).streamBatching).toBeUndefined();
  });

  it('adds the requests sent again over the measured repeats, and keeps none when there were none', () => {
    const m = mergeCellRepeats([
      cell({ staleReconnects: 2 }),
      cell({}),
      cell({ staleReconnects: 1 }),
      cell({ status: 'Failed', staleReconnects: 5 }), // a failed repeat counts in no figure
    ]);
    expect(m.staleReconnects).toBe(3);
    expect(m.requestsSent).toBe(42);
    expect('staleReconnects' in mergeCellRepeats([cell({}), cell({})])).toBe(false);
  });

  it('a cell that failed every time stays Failed with its last error', () => {
    const m = mergeCellRepeats([
      cell({ status: 'Failed', error: 'first' }),
      cell({ status: 'Failed', error: 'second' }),
    ]);
    expect(m.status).toBe('Failed');
    expect(m.error).toBe('second');
    expect(m.repeats).toHaveLength(2);
  });

  it('stores the merged figures to 1e-3, as one window stores its own', () => {
    const m = mergeCellRepeats([
      cell({ totalTokensPerS: 390.1, measuredS: 10.0001 }),
      cell({ totalTokensPerS: 410.2, measuredS: 10.0001 }),
      cell({ totalTokensPerS: 400.4, measuredS: 10.0001 }),
    ]);
    expect(m.totalTokensPerS).toBe(400.233); // 1200.7 / 3 = 400.2333…
    expect(m.measuredS).toBe(30);
    const { lo, hi } = m.intervals!.totalTokensPerS!;
    for (const x of [lo, hi]) expect(Math.round(x * 1000) / 1000).toBe(x);
    expect(lo).toBeLessThan(390.1);
    expect(hi).toBeGreaterThan(410.2);
  });

  it('one repeat is the cell itself', () => {
    const c = cell({});
    expect(mergeCellRepeats([c])).toBe(c);
  });
});
