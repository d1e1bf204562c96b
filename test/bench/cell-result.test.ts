import { describe, expect, it } from 'vitest';
import { buildDecodeCell, serverErrorsOf, type CellRequest } from '../../src/bench/cell-result.js';
import type { ServerSample } from '../../src/results/schema.js';

// Two requests streaming 10 tokens every 100 ms through a 1 s window: 200 output tokens in 1 s.
function requests(withCache: boolean): CellRequest[] {
  return [0, 1].map((i) => ({
    sentAtMs: -50,
    firstTokenAtMs: 0,
    endAtMs: 1000,
    ok: true,
    chunks: Array.from({ length: 10 }, (_, k) => [k * 100 + i, 10] as const),
    ...(withCache ? { promptTokens: 1000, cachedTokens: 250 } : {}),
  }));
}

const samples: ServerSample[] = [
  { tMs: 0, running: 2, waiting: 0, powerW: 300, specDrafts: 100, specAcceptedTokens: 50 },
  { tMs: 500, running: 2, waiting: 3, powerW: 500, prefixCacheHits: 10, prefixCacheQueries: 100 },
  { tMs: 1000, running: 1, waiting: 1, powerW: 300, specDrafts: 200, specAcceptedTokens: 200 },
];

const cellOf = (s: ServerSample[], withCache = false) =>
  buildDecodeCell({
    contextTokens: 1024,
    concurrency: 2,
    window: { openMs: 0, closeMs: 1000 },
    requests: requests(withCache),
    samples: s,
    rampTimedOut: false,
    errorLimitHit: false,
    queueReference: null,
  });

describe('decode cell server figures (serverCellFigures)', () => {
  it('fills power, energy per token, efficiency, speculation and queue depth from the window samples', () => {
    const cell = cellOf(samples);
    expect(cell.outputTokens).toBe(200);
    expect(cell.maxRunning).toBe(2);
    expect(cell.maxWaiting).toBe(3);
    // Trapezoid mean of 300, 500, 300 over 0..1000 ms = 400 W.
    expect(cell.avgPowerW).toBe(400);
    // 400 W x measured s / 200 tokens, and (200 tokens / measured s) / 400 W.
    const measuredS = cell.measuredS!;
    expect(cell.joulesPerToken).toBeCloseTo((400 * measuredS) / 200, 3);
    expect(cell.tokensPerSPerW).toBeCloseTo(200 / measuredS / 400, 3);
    // 1 + 150 accepted / 100 drafts.
    expect(cell.specAcceptanceLength).toBe(2.5);
  });

  it('prefers usage cached tokens for the cache hit ratio, else the server counters', () => {
    expect(cellOf(samples, true).cacheHitRatio).toBe(0.25);
    const counters: ServerSample[] = [
      { tMs: 0, prefixCacheHits: 100, prefixCacheQueries: 1000 },
      { tMs: 1000, prefixCacheHits: 700, prefixCacheQueries: 2000 },
    ];
    expect(cellOf(counters).cacheHitRatio).toBe(0.6);
  });

  it('leaves power figures out and queue depth null when the server gave no readings', () => {
    const cell = cellOf([]);
    expect(cell.avgPowerW).toBeUndefined();
    expect(cell.joulesPerToken).toBeUndefined();
    expect(cell.tokensPerSPerW).toBeUndefined();
    expect(cell.maxRunning).toBeNull();
    expect(cell.maxWaiting).toBeNull();
    expect(cell.specAcceptanceLength).toBeNull();
    expect(cell.cacheHitRatio).toBeNull();
  });
});

describe('decode cell: requests sent twice', () => {
  it('counts the requests re-sent after a reused connection closed unanswered, and says nothing when none was', () => {
    const rs = requests(false);
    const resent = { firstSentAtMs: -60, reason: 'other side closed' };
    const cell = (list: CellRequest[]) =>
      buildDecodeCell({
        contextTokens: 1024,
        concurrency: 2,
        window: { openMs: 0, closeMs: 1000 },
        requests: list,
        samples: [],
        rampTimedOut: false,
        errorLimitHit: false,
        queueReference: null,
      });
    expect(cell([{ ...rs[0]!, resent }, rs[1]!]).staleReconnects).toBe(1);
    expect(cell(rs.map((r) => ({ ...r, resent }))).staleReconnects).toBe(2);
    expect('staleReconnects' in cell(rs)).toBe(false);
  });
});

describe("a cell's failed requests in the server's own words", () => {
  const failed = (message: string, status = 500): CellRequest => ({
    sentAtMs: 0,
    endAtMs: 10,
    ok: false,
    chunks: [],
    errorKind: 'stream_error_event',
    serverError: { message, status },
  });

  it('distinct messages with their counts, most frequent first, at most five', () => {
    const reqs = [
      ...Array.from({ length: 3 }, () => failed('Context size has been exceeded.')),
      failed('other', 400),
      ...['a', 'b', 'c', 'd', 'e'].map((m) => failed(m)),
      { ...failed('ours, not the server'), serverError: undefined, errorKind: 'timeout_idle' as const },
    ];
    const said = serverErrorsOf(reqs);
    expect(said).toHaveLength(5);
    expect(said[0]).toEqual({
      message: 'Context size has been exceeded.',
      count: 3,
      kind: 'stream_error_event',
      status: 500,
    });
    expect(said.map((s) => s.message)).not.toContain('ours, not the server');
  });

  it('none where nothing failed: no field on the cell', () => {
    expect(serverErrorsOf(requests(false))).toEqual([]);
    expect(cellOf(samples).serverErrors).toBeUndefined();
  });
});
