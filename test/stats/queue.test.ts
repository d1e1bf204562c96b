import { describe, expect, it } from 'vitest';
import { makeRng } from '../../src/sim/rng.js';
import {
  clientQueueEvidence,
  describeClientQueue,
  fastestTtftReference,
  referenceFromCells,
  type ReferenceCell,
} from '../../src/stats/queue.js';
import type { MeasureWindow, TimedRequest } from '../../src/stats/window.js';

// A closed loop of N clients against a continuous-batching server with S slots, in virtual time and written
// independently of the runner and the sim: each step costs base + perSeq x batch + prefill of the requests
// admitted in it; admitted requests get their first token at the step's end, running ones one token per step.
interface Engine {
  slots: number;
  baseMs: number;
  perSeqMs: number;
  prefillMs: number;
  maxOutput: number;
  earlyStop: boolean; // output lengths drawn in [maxOutput / 4, maxOutput]
}

interface Live {
  req: TimedRequest & { chunks: Array<[number, number]> };
  left: number;
}

function closedLoop(e: Engine, n: number, endMs: number, seed: number): TimedRequest[] {
  const rng = makeRng(seed);
  const out: TimedRequest[] = [];
  const arrivals: number[] = Array.from({ length: n }, (_, i) => i * 0.05);
  const running: Live[] = [];
  const length = () => (e.earlyStop ? Math.ceil(e.maxOutput * (0.25 + 0.75 * rng())) : e.maxOutput);
  let t = 0;
  while (t < endMs) {
    arrivals.sort((a, b) => a - b);
    if (running.length === 0 && (arrivals[0] ?? Infinity) > t) t = arrivals[0]!;
    const admitted: Live[] = [];
    while (running.length + admitted.length < e.slots && arrivals.length > 0 && arrivals[0]! <= t) {
      const sentAtMs = arrivals.shift()!;
      admitted.push({ req: { sentAtMs, endAtMs: Infinity, chunks: [], ok: true }, left: length() });
    }
    const batch = running.length + admitted.length;
    t += e.baseMs + e.perSeqMs * batch + e.prefillMs * admitted.length * (0.9 + 0.2 * rng());
    for (const l of running) l.req.chunks.push([t, 1]);
    for (const l of admitted) {
      l.req.firstTokenAtMs = t;
      l.req.chunks.push([t, 1]);
      running.push(l);
    }
    for (const l of running) l.left -= 1;
    for (let i = running.length - 1; i >= 0; i--) {
      const l = running[i]!;
      if (l.left > 0) continue;
      l.req.endAtMs = t;
      out.push(l.req);
      running.splice(i, 1);
      arrivals.push(t + 0.2);
    }
  }
  // Requests still in flight or waiting at the end were aborted by the close.
  for (const l of running) out.push({ ...l.req, endAtMs: endMs, ok: false, errorKind: 'aborted' });
  for (const a of arrivals)
    if (a < endMs) out.push({ sentAtMs: a, endAtMs: endMs, chunks: [], ok: false, errorKind: 'aborted' });
  return out;
}

const ENGINES: Record<string, Omit<Engine, 'slots'>> = {
  // Short requests end often, so re-sends keep arriving during the window.
  fast: { baseMs: 8, perSeqMs: 0.3, prefillMs: 20, maxOutput: 64, earlyStop: true },
  // Long requests and a heavy prefill (a 32K context): the window sees few re-sends.
  longPrefill: { baseMs: 12, perSeqMs: 0.5, prefillMs: 400, maxOutput: 512, earlyStop: false },
  // Requests that all start and end together (no early stop): re-sends arrive in bursts of N.
  lockstep: { baseMs: 10, perSeqMs: 0.2, prefillMs: 5, maxOutput: 128, earlyStop: false },
};

describe('client-timeline queue rule', () => {
  for (const [name, engine] of Object.entries(ENGINES))
    for (const slots of [1, 2, 4, 8]) {
      it(`${name}: with ${slots} slot(s), every N > S cell is queued and every N <= S cell is not`, () => {
        const e = { ...engine, slots };
        const cells: ReferenceCell[] = [];
        for (const n of [1, slots, slots + 1, 2 * slots, 4 * slots, 16 * slots].filter(
          (v, i, a) => a.indexOf(v) === i,
        )) {
          const rampMs = 3 * (e.prefillMs * n + e.maxOutput * (e.baseMs + e.perSeqMs * slots));
          const window: MeasureWindow = { openMs: rampMs, closeMs: rampMs + 6000 };
          const requests = closedLoop(e, n, window.closeMs, 7 * slots + n);
          const evidence = clientQueueEvidence({
            concurrency: n,
            requests,
            window,
            reference: referenceFromCells(cells, 1024, n),
          })!;
          expect(evidence.queued, `N=${n}: ${describeClientQueue(evidence, n)}`).toBe(n > slots);
          const ttfts = requests
            .filter((r) => r.firstTokenAtMs !== undefined)
            .map((r) => r.firstTokenAtMs! - r.sentAtMs)
            .sort((a, b) => a - b);
          cells.push({
            contextTokens: 1024,
            concurrency: n,
            status: evidence.queued ? 'Requests queued' : 'Valid',
            ttftMs: ttfts[Math.floor(ttfts.length / 2)]!,
          });
        }
      });
    }

  it('tells many users with a slow prefill (no queue) from a full server', () => {
    // 64 slots, 128 tokens per request, a prefill as long as a third of the decode: at any instant several of
    // the 64 are prefilling, so all 64 rarely stream at once although none queues.
    const e: Engine = {
      slots: 64,
      baseMs: 10,
      perSeqMs: 0.1,
      prefillMs: 40,
      maxOutput: 128,
      earlyStop: true,
    };
    const cells: ReferenceCell[] = [];
    for (const n of [16, 32, 64, 65, 128]) {
      const window = { openMs: 20_000, closeMs: 30_000 };
      const requests = closedLoop(e, n, window.closeMs, n);
      const ev = clientQueueEvidence({
        concurrency: n,
        requests,
        window,
        reference: referenceFromCells(cells, 1, n),
      })!;
      expect(ev.queued, `N=${n}: ${describeClientQueue(ev, n)}`).toBe(n > 64);
      const ttfts = requests.flatMap((r) =>
        r.firstTokenAtMs === undefined ? [] : [r.firstTokenAtMs - r.sentAtMs],
      );
      ttfts.sort((a, b) => a - b);
      cells.push({
        contextTokens: 1,
        concurrency: n,
        status: 'Valid',
        ttftMs: ttfts[Math.floor(ttfts.length / 2)]!,
      });
    }
  });

  it('holds when only the queued cell is measured (no lower-concurrency reference)', () => {
    const e = { ...ENGINES.fast!, slots: 1 };
    const window = { openMs: 2000, closeMs: 8000 };
    const requests = closedLoop(e, 16, window.closeMs, 3);
    const ev = clientQueueEvidence({ concurrency: 16, requests, window, reference: null })!;
    expect(ev.referenceFrom).toBe('the fastest first token of this cell');
    expect(ev.queued).toBe(true);
    expect(ev.peakStreaming).toBe(1);
    expect(ev.avgPastReference).toBeGreaterThan(13);
  });

  it('does not call a slow but unqueued server queued', () => {
    // Every request waits 900 ms for its first token because prefill is slow, and none queues.
    const requests: TimedRequest[] = [];
    for (let slot = 0; slot < 4; slot++)
      for (let k = 0; k < 10; k++) {
        const sent = k * 1000 + slot * 3;
        requests.push({
          sentAtMs: sent,
          firstTokenAtMs: sent + 900,
          endAtMs: sent + 999,
          chunks: [
            [sent + 900, 1],
            [sent + 999, 1],
          ],
          ok: true,
        });
      }
    const ev = clientQueueEvidence({
      concurrency: 4,
      requests,
      window: { openMs: 1000, closeMs: 9000 },
      reference: { ttftMs: 880, from: "the ×2 cell's median" },
    })!;
    expect(ev.queued).toBe(false);
    expect(ev.peakStreaming).toBe(4);
  });

  it('takes the reference from the highest lower-concurrency Valid cell of the same context', () => {
    const cells = [
      { contextTokens: 1024, concurrency: 1, status: 'Valid', ttftMs: 10 },
      { contextTokens: 1024, concurrency: 4, status: 'Valid', ttftMs: 14 },
      { contextTokens: 1024, concurrency: 8, status: 'Requests queued', ttftMs: 900 },
      { contextTokens: 2048, concurrency: 8, status: 'Valid', ttftMs: 30 },
    ];
    expect(referenceFromCells(cells, 1024, 16)).toEqual({ ttftMs: 14, from: "the ×4 cell's median" });
    expect(referenceFromCells(cells, 1024, 1)).toBeNull();
    expect(
      fastestTtftReference([{ sentAtMs: 5, firstTokenAtMs: 12, endAtMs: 20, chunks: [], ok: true }])?.ttftMs,
    ).toBe(7);
  });
});
