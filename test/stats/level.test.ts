import { describe, expect, it } from 'vitest';
import { LoadLevel } from '../../src/results/schema.js';
import { levelFigures, type LevelRequest } from '../../src/stats/level.js';
import { decideLevelStatus, measureLevel, referenceFromLevels } from '../../src/stats/level-status.js';
import type { MeasureWindow } from '../../src/stats/window.js';

// The figures of a load level (docs/workloads.md "Figures of a load level"), each number below computed by hand
// from the requests written out here.
const W: MeasureWindow = { openMs: 1000, closeMs: 11_000 }; // 10 s

const ok = (r: Omit<LevelRequest, 'ok'>): LevelRequest => ({ ...r, ok: true });
const REQUESTS: LevelRequest[] = [
  // A warm-up arrival: not the window's, but its completion and its tokens inside the window count for the rates.
  ok({
    scheduledAtMs: 500,
    sentAtMs: 500,
    firstTokenAtMs: 600,
    endAtMs: 1600,
    chunks: [
      [600, 1],
      [1100, 1],
      [1600, 2],
    ],
  }),
  // a1: lag 2, TTFT 102 from the schedule and 100 from the send, 4 tokens after the first over 400 ms: 10 tok/s.
  ok({
    scheduledAtMs: 1000,
    sentAtMs: 1002,
    firstTokenAtMs: 1102,
    endAtMs: 1502,
    chunks: [1102, 1202, 1302, 1402, 1502].map((t) => [t, 1] as const),
    promptTokens: 200,
    cachedTokens: 90,
    cacheableTokens: 100,
  }),
  // a2: held 500 ms at the in-flight cap, lag 1 after its release; 2-token chunks: 4 after the first in 400 ms.
  ok({
    scheduledAtMs: 3000,
    releasedAtMs: 3500,
    sentAtMs: 3501,
    firstTokenAtMs: 3701,
    endAtMs: 4101,
    chunks: [
      [3701, 2],
      [3901, 2],
      [4101, 2],
    ],
    cachedTokens: 100,
    cacheableTokens: 100,
  }),
  // a3: failed before a token.
  {
    scheduledAtMs: 5000,
    sentAtMs: 5003,
    endAtMs: 5010,
    chunks: [],
    ok: false,
    errorKind: 'http_status',
  },
  // a4: ends after the close (the drain): completed, but not inside the window; 2 tokens in 2 s: 1 tok/s.
  ok({
    scheduledAtMs: 9000,
    sentAtMs: 9004,
    firstTokenAtMs: 9504,
    endAtMs: 11_504,
    chunks: [
      [9504, 1],
      [10_504, 1],
      [11_504, 1],
    ],
    cacheableTokens: 50,
  }),
  // a5: aborted at the drain timeout: unfinished, one token inside the window.
  {
    scheduledAtMs: 10_500,
    sentAtMs: 10_505,
    firstTokenAtMs: 10_800,
    endAtMs: 71_000,
    chunks: [[10_800, 1]],
    ok: false,
    errorKind: 'aborted',
  },
  // Scheduled at the close: the next window's, if any.
  ok({
    scheduledAtMs: 11_000,
    sentAtMs: 11_000,
    firstTokenAtMs: 11_100,
    endAtMs: 11_200,
    chunks: [[11_100, 1]],
  }),
];
const SLO = { ttftMs: 600, share: 0.9 };

describe('figures of a load level', () => {
  const f = levelFigures({ requests: REQUESTS, window: W, slo: SLO });

  it('counts the window arrivals and the rates', () => {
    expect(f.requests).toEqual({ arrived: 5, completed: 3, failed: 1, unfinished: 1 });
    expect(f.offeredRate).toBe(0.5); // 5 arrivals / 10 s
    expect(f.achievedRate).toBe(0.3); // ended ok inside the window: the warm-up's, a1, a2
    expect(f.outputTokens).toBe(17); // 3 + 5 + 6 + 2 + 1
    expect(f.totalTokensPerS).toBe(1.7);
    expect(f.errors).toEqual({ http_status: 1 });
  });

  it('takes TTFT from the schedule and from the send, ITL and E2E per request', () => {
    // From the schedule: 102, 701, 504, 300 (a5 got its first token before the abort).
    expect(f.ttftMs.n).toBe(4);
    expect(f.ttftMs.p50).toBe(402); // (300 + 504) / 2
    expect(f.ttftMs.p90).toBeCloseTo(641.9, 9); // 504 + 0.7 × 197
    expect(f.ttftMs.p99).toBeCloseTo(695.09, 9); // 504 + 0.97 × 197
    expect(f.ttftFromSendMs.p50).toBe(247.5); // of 100, 200, 295, 500
    expect(f.itlMs.n).toBe(3); // a5 has one chunk
    expect(f.itlMs.p50).toBe(100); // 100, 100, 1000
    expect(f.perRequestTokensPerS.p50).toBe(10); // 10, 10, 1
    expect(f.e2eMs.n).toBe(3);
    expect(f.e2eMs.p50).toBe(1101); // 502, 1101, 2504
    expect(f.ttftMs.intervals.p50).toBeNull(); // 4 requests: too few
  });

  it('judges the service level per window arrival: unfinished and failed ones miss it', () => {
    // ttft 600 ms: a1 (102) and a4 (504) meet it, a2 (701) is late, a3 failed, a5 unfinished.
    expect(f.windowRequests).toEqual({ ttftMs: [102, 701, 504], tokensPerS: [10, 10, 1], failed: 2 });
    expect(f.slo.met).toBe(2);
    expect(f.slo.judged).toBe(5);
    expect(f.slo.share).toBe(0.4);
    expect(f.goodput).toBe(0.2); // 2 met / 10 s
    const rated = levelFigures({ requests: REQUESTS, window: W, slo: { ...SLO, tokensPerS: 5 } });
    expect(rated.slo.met).toBe(1); // a4 decoded at 1 tok/s
    expect(rated.goodput).toBe(0.1);
  });

  it('measures the client lag behind the schedule, from the release where the cap held a request', () => {
    expect(f.lag.n).toBe(5);
    expect(f.lag.p50Ms).toBe(3); // 2, 1, 3, 4, 5
    expect(f.lag.p99Ms).toBeCloseTo(4.96, 9);
    expect(f.lag.maxMs).toBe(5);
    expect(f.lag.limitMs).toBe(200); // a tenth of the 2 s mean gap, over 10 ms
    expect(f.inFlightCap).toEqual({ waited: 1, p50Ms: 500, p99Ms: 500, maxMs: 500, avgWaiting: 0.05 });
  });

  it('puts the expected prefix-cache hits beside the served ones, usage first, else the hit counter', () => {
    expect(f.cache).toEqual({
      expectedTokens: 250,
      servedTokens: 190,
      source: 'usage',
      promptTokens: 200,
      reported: 2,
    });
    const bare = REQUESTS.map((r) => ({ ...r, cachedTokens: undefined, promptTokens: undefined }));
    const samples = [1000, 1500, 1800].map((h, i) => ({ tMs: i * 1000, prefixCacheHits: h }));
    const metered = levelFigures({ requests: bare, window: W, slo: SLO, samples });
    expect(metered.cache).toMatchObject({ servedTokens: 800, source: 'metrics', reported: 0 });
    expect(levelFigures({ requests: bare, window: W, slo: SLO }).cache).toMatchObject({
      servedTokens: null,
      source: 'none',
    });
  });

  it('takes a closed loop request without a schedule as scheduled at its send (no lag)', () => {
    const closed = REQUESTS.map((r) => {
      const { scheduledAtMs, releasedAtMs, ...rest } = r;
      void scheduledAtMs;
      void releasedAtMs;
      return rest;
    });
    const c = levelFigures({ requests: closed, window: W, slo: SLO });
    expect(c.lag.n).toBe(0);
    expect(c.lag.p99Ms).toBeNull();
    expect(c.ttftMs.p50).toBe(c.ttftFromSendMs.p50);
    expect(c.inFlightCap).toBeUndefined();
  });
});

// Requests through a server of `seats` first-come-first-served seats, each holding a request `serviceMs`, its first
// token 10 ms in: the client timeline of a queue, written apart from src/stats/queue.ts.
function served(arrivals: number[], seats: number, serviceMs: number): LevelRequest[] {
  const free = new Array<number>(seats).fill(0);
  return arrivals.map((at) => {
    free.sort((a, b) => a - b);
    const start = Math.max(at, free[0]!);
    free[0] = start + serviceMs;
    const chunks = Array.from({ length: 30 }, (_, i) => [start + 10 + i * 10, 1] as const);
    return ok({ scheduledAtMs: at, sentAtMs: at, firstTokenAtMs: start + 10, endAtMs: start + 300, chunks });
  });
}
const every = (gapMs: number, untilMs: number) =>
  Array.from({ length: Math.floor(untilMs / gapMs) }, (_, i) => i * gapMs);
const unqueued = { ttftMs: 10, from: 'the 1 req/s level' };

describe('status of a load level', () => {
  const status = (requests: LevelRequest[], o: Partial<Parameters<typeof decideLevelStatus>[0]> = {}) => {
    const window = { openMs: 2000, closeMs: 12_000 };
    const figures = levelFigures({ requests, window, slo: SLO });
    return decideLevelStatus({ figures, requests, window, samples: [], reference: unqueued, ...o });
  };

  it('is Valid below the seats and Requests queued past them, from the client timeline alone', () => {
    // 2 seats of 300 ms serve 6.7 req/s: an arrival every 400 ms never waits, every 100 ms (10 req/s) piles up;
    // both seats stream but for the 10 ms before each first token: 2 × 290 / 300 - 1 = 93% of the time.
    const light = status(served(every(400, 14_000), 2, 300));
    expect(light.status).toBe('Valid');
    expect(light.clientQueue?.queued).toBe(false);
    const heavy = status(served(every(100, 14_000), 2, 300));
    expect(heavy.status).toBe('Requests queued');
    expect(heavy.clientQueue?.peakStreaming).toBe(2);
    expect(heavy.evidence).toMatch(/streamed at a ceiling of 2 for 93% of the window/);
  });

  it('reads the waiting gauge as a cell does', () => {
    const samples = [1, 2, 0, 3].map((waiting, i) => ({ tMs: i * 1000, waiting }));
    const d = status(served(every(400, 14_000), 2, 300), { samples });
    expect(d.status).toBe('Requests queued');
    expect(d.evidence).toMatch(/waiting requests in 3 of 4 samples \(max 3\)/);
  });

  it('is Requests queued where arrivals wait at the in-flight cap', () => {
    const held = served(every(400, 14_000), 2, 300).map((r) => ({
      ...r,
      releasedAtMs: r.scheduledAtMs! + 200, // each held 200 ms: half an arrival waiting on average
      sentAtMs: r.scheduledAtMs! + 200,
    }));
    const d = status(held, { maxInFlight: 1 });
    expect(d.status).toBe('Requests queued');
    expect(d.evidence).toMatch(/on average 0\.5 arrivals waited at the in-flight cap of 1 \(p99 200 ms\)/);
  });

  it('is Client-bound when the client trailed its schedule past the limit, and Failed before that', () => {
    // Gaps of 400 ms: the limit is 40 ms; every request sent 50 ms late.
    const late = served(every(400, 14_000), 2, 300).map((r) => ({ ...r, sentAtMs: r.sentAtMs + 50 }));
    const d = status(late);
    expect(d.status).toBe('Client-bound');
    expect(d.evidence).toMatch(/p99 50 ms, past 40 ms/);
    const failing = late.map((r, i) =>
      i % 5 === 0 ? { ...r, ok: false, errorKind: 'timeout_idle' as const } : r,
    );
    expect(status(failing).status).toBe('Failed');
  });

  it('counts the tokens of window arrivals however late; a window without arrivals is Failed', () => {
    // One arrival whose first token comes after the close (a prefill longer than the window): measured, not Failed.
    const slow = ok({
      scheduledAtMs: 2000,
      sentAtMs: 2000,
      firstTokenAtMs: 14_000,
      endAtMs: 15_000,
      chunks: [
        [14_000, 1],
        [15_000, 1],
      ],
    });
    const d = status([slow]);
    expect(d.status).toBe('Valid');
    expect(d.clientQueue).toMatchObject({ peakStreaming: 0, queued: false });
    expect(status([])).toMatchObject({
      status: 'Failed',
      error: expect.stringMatching(/no arrivals in the window/),
    });
  });

  it('stores a level the schema takes', () => {
    const level = measureLevel({
      row: '4096',
      key: '4096@2.5/s',
      load: { model: 'open', rate: 2.5, arrival: 'poisson', maxInFlight: 4 },
      requests: REQUESTS,
      window: W,
      slo: SLO,
      samples: [{ tMs: 0, waiting: 0 }],
    });
    expect(LoadLevel.parse(level)).toEqual(level);
    expect(level).toMatchObject({ status: 'Valid', goodput: 0.2, queue: { maxWaiting: 0 } });
  });

  it('takes the unqueued TTFT from the same row highest lower-rate Valid level', () => {
    const lv = (row: string, rate: number, status: string, p50: number | null) => ({
      row,
      load: { model: 'open' as const, rate, arrival: 'poisson' as const },
      status,
      ttftFromSendMs: { p50 },
    });
    const levels = [
      lv('8192', 1, 'Valid', 90),
      lv('8192', 2, 'Valid', 110),
      lv('8192', 4, 'Requests queued', 900),
      lv('4096', 3, 'Valid', 50),
    ];
    expect(referenceFromLevels(levels, '8192', 4)).toEqual({
      ttftMs: 110,
      from: "the 2 req/s level's median",
    });
    expect(referenceFromLevels(levels, '8192', 8)?.ttftMs).toBe(110);
    expect(referenceFromLevels(levels, '8192', 1)).toBeNull();
  });
});

describe("a closed level's requests cut at its close", () => {
  // Two users, a window of 1,000-11,000 ms: each user's last request is still running at the close and aborted there,
  // as a decode cell's; they are judged as a cell judges them, not counted as unfinished (docs/workloads.md).
  const cutAt = (sent: number, first: number | undefined): LevelRequest => ({
    sentAtMs: sent,
    ...(first !== undefined ? { firstTokenAtMs: first } : {}),
    endAtMs: 11_000,
    ok: false,
    errorKind: 'aborted',
    chunks: first !== undefined ? [first, first + 100, first + 200].map((t) => [t, 1] as const) : [],
  });
  const done = (sent: number): LevelRequest =>
    ok({
      sentAtMs: sent,
      firstTokenAtMs: sent + 100,
      endAtMs: sent + 1100,
      chunks: [0, 500, 1000].map((d) => [sent + 100 + d, 1] as const),
    });
  // 8 finished requests (TTFT 100 ms, 2 tokens in 1 s after the first), then user 1 cut with a first token at 10,700
  // (TTFT 200, 10 tok/s until the close) and user 2 cut at 10,950 before any token (waited 50 ms by the close).
  const requests = [1000, 2200, 3400, 4600, 5800, 7000, 8200, 9400].map(done);
  requests.push(cutAt(10_500, 10_700), cutAt(10_950, undefined));
  const slo = { ttftMs: 600, tokensPerS: 1.5, share: 0.9 };

  it('counts them apart and judges them by their first token and their rate until the close', () => {
    const closed = levelFigures({ requests, window: W, slo, closed: true });
    expect(closed.requests).toEqual({ arrived: 10, completed: 8, failed: 0, unfinished: 0, cutAtClose: 2 });
    expect(closed.windowRequests.ttftMs).toEqual([...Array<number>(8).fill(100), 200]);
    expect(closed.windowRequests.tokensPerS).toEqual([...Array<number>(8).fill(2), 10]);
    expect(closed.windowRequests.waitedMs).toEqual([50]);
    expect(closed.windowRequests.failed).toBeUndefined();
    // 9 judged, all meet (the 50 ms wait is no miss of a 600 ms level): goodput 9 per 10 s.
    expect(closed.slo.judged).toBe(9);
    expect(closed.slo.met).toBe(9);
    expect(closed.goodput).toBeCloseTo(0.9, 10);
    // Read as an open level's drain, the same two are unfinished and miss: 8 of 10, under the 90% asked.
    const open = levelFigures({ requests, window: W, slo });
    expect(open.requests).toEqual({ arrived: 10, completed: 8, failed: 0, unfinished: 2 });
    expect(open.slo.met).toBe(8);
    expect(open.slo.judged).toBe(10);
  });
});
