import { describe, expect, it } from 'vitest';
import { decideStatus } from '../../src/stats/status.js';
import type { TimedRequest } from '../../src/stats/window.js';
import { buildPrefillPoint, flagOutliers } from '../../src/bench/prefill.js';
import { windowFigures, type WindowFigures } from '../../src/stats/window.js';

const figures = (over: Partial<WindowFigures> = {}): WindowFigures => ({
  outputTokens: 1000,
  totalTokensPerS: 100,
  perRequestTokensPerS: 25,
  perRequestTokensPerSQ: { p50: 25, p90: 25, p99: 25 },
  ttftMs: 100,
  ttft: { p50: 100, p90: 100, p99: 100 },
  tbtMs: 40,
  chunkGapMs: { p50: 40, p90: 40, p99: 40 },
  avgActive: 4,
  completed: 0,
  measuredS: 30,
  requestsSent: 4,
  errors: {},
  abortedAtClose: 4,
  intervals: { totalTokensPerS: null, perRequestTokensPerS: null, ttftMs: null, tbtMs: null },
  stalls: { count: 0, totalMs: 0, maxGapMs: 40 },
  ...over,
});
// Four requests streaming through the whole 30 s window, first tokens 90-110 ms after their send.
const streaming = (n: number): TimedRequest[] =>
  Array.from({ length: n }, (_, i) => ({
    sentAtMs: -200 + i,
    firstTokenAtMs: -100 + i,
    endAtMs: 30_000,
    chunks: [[-100 + i, 1]],
    ok: false,
    errorKind: 'aborted',
  }));
// Two of four streaming all window long, two sent at the open that never got a first token.
const twoOfFour: TimedRequest[] = [
  ...streaming(2),
  ...[0, 1].map((i) => ({
    sentAtMs: i,
    endAtMs: 30_000,
    chunks: [],
    ok: false,
    errorKind: 'aborted' as const,
  })),
];
const base = {
  concurrency: 4,
  requests: streaming(4),
  window: { openMs: 0, closeMs: 30_000 },
  queueReference: null,
  samples: [],
  errorLimitHit: false,
};

describe('cell status', () => {
  it('is Valid when nothing waited', () => {
    expect(decideStatus({ ...base, figures: figures() }).status).toBe('Valid');
  });

  it('is Requests queued when metrics show waiting in at least half the samples', () => {
    const samples = [0, 1, 2, 3].map((i) => ({ tMs: i * 1000, running: 2, waiting: i === 0 ? 0 : 2 }));
    // two stream all window long, two wait: the client saw what the server says
    const d = decideStatus({ ...base, figures: figures({ avgActive: 2 }), requests: twoOfFour, samples });
    expect(d.status).toBe('Requests queued');
    expect(d.evidence).toContain('waiting requests in 3 of 4 samples (max 2)');
    expect(d.evidence).toContain('server ran a median of 2 requests (at most 2 in 4 samples)');
  });

  it('is not queued when every request ran at once and the running gauge caught re-send gaps (quick, 4K × 32)', () => {
    // The reviewer's cell: 704-token answers (~1 s each) on a 56-seat server; three samples read 32, 22, 26
    // running (one waiting = 1); the client saw 31.479 active on average (its re-send gaps) and all 32
    // streaming at once. Before: "server ran a median of 26 requests and the client saw 31.5 active, of 32".
    const samples = [
      { tMs: 0, running: 32, waiting: 0 },
      { tMs: 1000, running: 22, waiting: 1 },
      { tMs: 2000, running: 26, waiting: 0 },
    ];
    const d = decideStatus({
      ...base,
      concurrency: 32,
      figures: figures({ avgActive: 31.479 }),
      requests: streaming(32),
      samples,
    });
    expect(d.status).toBe('Valid');
    expect(d.evidence).toContain('all 32 requests streamed at once');
    // Either fact alone clears it: the gauge read 32 once (so 32 seats at least) ...
    const partial = { ...base, concurrency: 32, figures: figures({ avgActive: 31.479 }), samples };
    expect(decideStatus({ ...partial, requests: streaming(31) }).status).toBe('Valid');
    // ... or the client saw all 32 stream at once while the gauge never read 32
    const never32 = samples.map((x) => ({ ...x, running: Math.min(x.running, 30) }));
    expect(decideStatus({ ...partial, requests: streaming(32), samples: never32 }).status).toBe('Valid');
  });

  it('reads a seat limit from the running gauge where the server has no waiting gauge, from 3 samples up', () => {
    // A server running 2 of 4 (no waiting gauge): the median 2 < 3.5, never 4, the client saw 2 active and at
    // most 2 streaming. Queued by the running gauge (and by the client timeline).
    const samples = [0, 1, 2].map((i) => ({ tMs: i * 1000, running: 2 }));
    const input = { ...base, figures: figures({ avgActive: 2 }), requests: twoOfFour, samples };
    const d = decideStatus(input);
    expect(d.status).toBe('Requests queued');
    expect(d.evidence).toMatch(
      /^server ran a median of 2 requests \(at most 2 in 3 samples\) and the client saw 2\.0 active, of 4; at most 2 of 4/,
    );
    // two samples decide nothing: the running gauge is left out, the client timeline still decides
    const two = decideStatus({ ...input, samples: samples.slice(0, 2) });
    expect(two.status).toBe('Requests queued');
    expect(two.evidence).toMatch(/^at most 2 of 4 requests streamed at once/);
  });

  it('ignores a re-send caught waiting for one scheduler step', () => {
    const samples = [0, 1, 2, 3].map((i) => ({ tMs: i * 1000, running: 4, waiting: i === 2 ? 1 : 0 }));
    expect(decideStatus({ ...base, figures: figures(), samples }).status).toBe('Valid');
  });

  it('clears the waiting gauge where all N streamed at once and no first token came 2 steps past the unqueued one', () => {
    // Four slots in a closed loop over a 10 s window, offset by 250 ms: each request waits `wait` ms for its first
    // token, then streams 8 chunks 100 ms apart (the step) and is sent again at once. Each slot waits 200 of every
    // 900 ms, so all four stream at once between the waits (200-250 ms, 450-500 ms ... into each cycle).
    const loop = (waitOf: (slot: number, k: number) => number): TimedRequest[] => {
      const out: TimedRequest[] = [];
      for (let slot = 0; slot < 4; slot++)
        for (let at = slot * 250, k = 0; at < 10_000; k++) {
          const first = at + waitOf(slot, k);
          const chunks = Array.from({ length: 8 }, (_, i) => [first + 100 * i, 1] as [number, number]);
          const end = first + 700;
          out.push({ sentAtMs: at, firstTokenAtMs: first, endAtMs: end, chunks, ok: true });
          at = end;
        }
      return out;
    };
    const window = { openMs: 0, closeMs: 10_000 };
    // The gauge caught a re-send in 3 of 4 samples; the running gauge read 4 once (no seat limit).
    const samples = [1, 1, 0, 1].map((waiting, i) => ({ tMs: i * 2500, running: 4 - waiting, waiting }));
    const input = (requests: TimedRequest[], over: Partial<Parameters<typeof decideStatus>[0]> = {}) => ({
      ...base,
      requests,
      window,
      samples,
      figures: windowFigures(requests, window),
      queueReference: { ttftMs: 100, from: "the ×2 cell's median" },
      ...over,
    });
    // Bound: the unqueued 100 ms + 2 steps of 100 ms (the median chunk gap) = 300 ms.
    const d = decideStatus(input(loop(() => 200)));
    expect(d.status).toBe('Valid');
    expect(d.clientQueue?.peakStreaming).toBe(4);
    expect(d.clientQueue?.maxWaitMs).toBe(200);
    expect(d.evidence).toBe(
      'server metrics showed waiting requests in 3 of 4 samples (max 1), re-sent requests waiting for the next ' +
        "step: all 4 requests streamed at once (client timeline) (unqueued TTFT 100 ms from the ×2 cell's median; " +
        'longest wait 200 ms), no first token later than 2 steps of 100 ms past the unqueued one',
    );
    // One request 300 ms late still clears; 301 ms is past the bound, and the gauge stands.
    const late = (ms: number) => loop((slot, k) => (slot === 2 && k === 5 ? ms : 200));
    expect(decideStatus(input(late(300))).status).toBe('Valid');
    const queued = decideStatus(input(late(301)));
    expect(queued.status).toBe('Requests queued');
    expect(queued.evidence).toBe('server metrics showed waiting requests in 3 of 4 samples (max 1)');
    // Not all N streamed at once (N = 5 against these four slots): the gauge stands.
    expect(
      decideStatus(
        input(
          loop(() => 200),
          { concurrency: 5 },
        ),
      ).evidence,
    ).toMatch(/^server metrics showed waiting requests in 3 of 4 samples \(max 1\)(;|$)/);
    // A stream held on the way: the client's first tokens say nothing, the gauge stands.
    expect(
      decideStatus(
        input(
          loop(() => 200),
          { streamHeld: true },
        ),
      ).status,
    ).toBe('Requests queued');
    // Under half the samples the gauge never read a queue: Valid with the client's words alone.
    const rare = decideStatus(
      input(late(301), { samples: samples.map((x, i) => ({ ...x, waiting: i ? 0 : 1 })) }),
    );
    expect(rare.status).toBe('Valid');
    expect(rare.evidence).toMatch(/^all 4 requests streamed at once \(client timeline\)/);
  });

  it('without metrics: a ceiling below N with requests waiting means queued (client timeline)', () => {
    // Two stream all window long; two more were sent at the open and never got a first token.
    const waiting: TimedRequest[] = [0, 1].map((i) => ({
      sentAtMs: i,
      endAtMs: 30_000,
      chunks: [],
      ok: false,
      errorKind: 'aborted',
    }));
    const d = decideStatus({
      ...base,
      figures: figures({ avgActive: 2 }),
      requests: [...streaming(2), ...waiting],
      queueReference: { ttftMs: 100, from: "the ×2 cell's median" },
    });
    expect(d.status).toBe('Requests queued');
    expect(d.evidence).toContain('at most 2 of 4 requests streamed at once');
    expect(d.clientQueue?.peakStreaming).toBe(2);
    const ok = decideStatus({ ...base, figures: figures() });
    expect(ok.status).toBe('Valid');
    expect(ok.evidence).toContain('all 4 requests streamed at once (client timeline)');
  });

  it('a stream held between client and server leaves the status to the server: its first tokens are late', () => {
    const waiting: TimedRequest[] = [0, 1].map((i) => ({
      sentAtMs: i,
      endAtMs: 30_000,
      chunks: [],
      ok: false,
      errorKind: 'aborted',
    }));
    const input = {
      ...base,
      figures: figures({ avgActive: 2 }),
      requests: [...streaming(2), ...waiting],
      queueReference: { ttftMs: 100, from: "the ×2 cell's median" },
      streamHeld: true,
    };
    const d = decideStatus(input);
    expect(d.status).toBe('Valid');
    expect(d.clientQueue?.queued).toBe(true); // kept as seen, not used
    expect(d.evidence).toBe(
      'the client timeline cannot tell: the stream was held back between client and server',
    );
    // the server's own metrics still decide
    const samples = [0, 1, 2, 3].map((i) => ({ tMs: i * 1000, running: 2, waiting: 2 }));
    expect(decideStatus({ ...input, samples }).status).toBe('Requests queued');
  });

  it('is Failed at the error limit, without tokens, or when 10% of requests failed', () => {
    expect(decideStatus({ ...base, figures: figures(), errorLimitHit: true }).status).toBe('Failed');
    expect(decideStatus({ ...base, figures: figures({ outputTokens: 0 }) }).status).toBe('Failed');
    // 2 of 20 = 10% -> Failed; 1 of 20 -> still measured
    expect(
      decideStatus({ ...base, figures: figures({ requestsSent: 20, errors: { http_status: 2 } }) }).status,
    ).toBe('Failed');
    expect(
      decideStatus({ ...base, figures: figures({ requestsSent: 20, errors: { http_status: 1 } }) }).status,
    ).toBe('Valid');
    const d = decideStatus({
      ...base,
      figures: figures({ requestsSent: 40, errors: { timeout_idle: 3, connect: 2 } }),
    });
    expect(d.status).toBe('Failed');
    expect(d.error).toContain('3 timeout_idle, 2 connect');
  });
});

describe('prefill point', () => {
  it('flags a repeat more than 25% from the median (the H200 seed 64K kind)', () => {
    const reps = [22_800, 4_764, 16_900].map((tokensPerS) => ({
      promptTokens: 65536,
      ttftMs: 1,
      tokensPerS,
    }));
    const flagged = flagOutliers(reps);
    expect(flagged.map((r) => r.outlier ?? false)).toEqual([true, true, false]);
    expect(flagOutliers([{ promptTokens: 1, ttftMs: 1, tokensPerS: 5 }])[0]!.outlier).toBeUndefined();
  });

  it('takes prompt tokens from usage, the median over repeats, and keeps errors', () => {
    const rec = (ttft: number, prompt?: number) => ({
      spec: { cell: 'prefill 8192', phase: 'prefill' as const, contextTokens: 8192, slot: 1, maxOutput: 1 },
      requestId: 'x',
      estTokens: 8200,
      record: {
        sentAtMs: 1000,
        firstTokenAtMs: 1000 + ttft,
        endAtMs: 1000 + ttft,
        chunks: [[1000 + ttft, 1]] as Array<[number, number]>,
        outputTokens: 1,
        tokenCountSource: 'final_usage' as const,
        ok: true,
        ...(prompt ? { promptTokens: prompt } : {}),
      },
    });
    const failed = {
      ...rec(0),
      record: {
        ...rec(0).record,
        ok: false,
        firstTokenAtMs: undefined,
        error: { kind: 'connect' as const, message: 'refused' },
      },
    };
    const p = buildPrefillPoint(8192, true, [rec(800, 8192), rec(1000, 8192), failed]);
    expect(p.status).toBe('Valid');
    expect(p.ttftMs).toBe(900);
    expect(p.tokensPerS).toBeCloseTo((8192 / 0.8 + 8192 / 1.0) / 2, 0);
    expect(p.repeats[0]!.promptTokensSource).toBe('usage');
    expect(p.errors).toEqual({ connect: 1 });
    const est = buildPrefillPoint(8192, true, [rec(500)]);
    expect(est.promptTokens).toBe(8200);
    expect(est.repeats[0]!.promptTokensSource).toBe('estimate');
    expect(buildPrefillPoint(8192, true, [failed]).status).toBe('Failed');
  });
});
