import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../../../src/client/types.js';
import type { Sent } from '../../../../src/bench/drive/sender.js';
import { mergeShares, shiftRecord, worstLoad } from '../../../../src/bench/drive/agents/merge.js';
import {
  bestOffset,
  offsetAt,
  offsetUncertainty,
  sampleOffset,
  type TimeSample,
} from '../../../../src/bench/drive/agents/offsets.js';
import type { ClockOffset } from '../../../../src/bench/drive/runner.js';
import { agentShares } from '../../../../src/bench/drive/agents/shard.js';
import { sessionsIn, splitShare, splitCap, ALL } from '../../../../src/bench/drive/share.js';
import { parseFromAgent } from '../../../../src/bench/drive/agents/protocol.js';
import { windowFigures } from '../../../../src/stats/window.js';
import { mulberry32 } from '../../../../src/rng.js';

// An agent whose clock reads true time - skew(true time): an exchange at true time `at` with one-way delays `out`
// and `back` and `hold` ms on the coordinator, as the four stamps each side would take.
function exchange(
  at: number,
  out: number,
  back: number,
  hold: number,
  skew: (t: number) => number,
): TimeSample {
  const t1 = at + out;
  const t2 = t1 + hold;
  const arrive = t2 + back;
  return { t0: at - skew(at), t1, t2, t3: arrive - skew(arrive) };
}

describe('clock offsets (NTP-style)', () => {
  it('finds the offset of a symmetric trip exactly, with half the round trip as its uncertainty', () => {
    const s = exchange(10_000, 1, 1, 0.2, () => 50); // agent 50 ms behind: coordinator = agent + 50
    expect(sampleOffset(s)).toEqual({ offsetMs: 50, rttMs: 2 });
    const best = bestOffset([s])!;
    expect(best.offsetMs).toBe(50);
    expect(best.uncertaintyMs).toBe(1);
  });

  it('keeps the true offset within the uncertainty however the trip is split', () => {
    const rnd = mulberry32(3);
    for (let i = 0; i < 500; i++) {
      const truth = (rnd() - 0.5) * 200;
      const out = rnd() * 5;
      const back = rnd() * 5;
      const b = bestOffset([exchange(1e6 + i, out, back, rnd(), () => truth)])!;
      expect(Math.abs(b.offsetMs - truth)).toBeLessThanOrEqual(b.uncertaintyMs + 1e-9);
    }
  });

  it('takes the sample with the smallest round trip of many', () => {
    const skew = () => -50; // coordinator 50 ms behind the agent: offset -50
    const samples = [
      exchange(0, 9, 1, 0, skew), // rtt 10, estimate off by 4
      exchange(100, 0.3, 0.4, 0, skew), // rtt 0.7
      exchange(200, 2, 7, 0, skew),
    ];
    const b = bestOffset(samples)!;
    expect(b.uncertaintyMs).toBeCloseTo(0.35, 9);
    expect(b.offsetMs).toBeCloseTo(-50 - 0.05, 9);
    expect(bestOffset([])).toBeUndefined();
  });

  it('follows a clock that drifts 1 ms/s between the estimates before and after a cell', () => {
    const skew = (t: number) => 50 + (t - 1e6) / 1000; // 50 ms behind at t = 1e6 s, 1 ms more every second
    const before = bestOffset([exchange(1e6, 0.5, 0.5, 0, skew)])!;
    const after = bestOffset([exchange(1e6 + 60_000, 0.5, 0.5, 0, skew)])!;
    expect(after.offsetMs - before.offsetMs).toBeCloseTo(60, 1); // 60 s at 1 ms/s
    // Any agent stamp in between maps back to its true time to well under a microsecond per ms of drift error.
    for (const trueT of [1e6 + 1_000, 1e6 + 30_000, 1e6 + 59_000, 1e6 + 70_000]) {
      const agentT = trueT - skew(trueT);
      expect(agentT + offsetAt(before, after, agentT)).toBeCloseTo(trueT, 3);
    }
    expect(offsetAt(before, undefined, 5)).toBe(before.offsetMs);
    expect(offsetUncertainty(before, { ...after, uncertaintyMs: 3 })).toBe(3);
  });
});

describe('session shares', () => {
  const of = (n: number, agents: number[]) =>
    new Map([...agentShares(n, agents)].map(([a, sh]) => [a, [...sessionsIn(sh, n)]]));

  it('deals (s - 1) mod K = index: agent 0 drives session 1', () => {
    expect(of(5, [0, 1])).toEqual(
      new Map([
        [0, [1, 3, 5]],
        [1, [2, 4]],
      ]),
    );
    expect(of(1, [0, 1, 2, 3])).toEqual(new Map([[0, [1]]])); // agents beyond the sessions get none
    expect(of(4, [7, 0]).get(7)).toEqual([2, 4]);
  });

  it('covers 1..N exactly once for every N and set of agents, also after one left, and split again', () => {
    for (const agents of [[0], [0, 1], [0, 1, 2, 3], [3, 0, 2], [0, 5]])
      for (let n = 1; n <= 40; n++) {
        const all = [...of(n, agents).values()].flat().sort((a, b) => a - b);
        expect(all).toEqual(Array.from({ length: n }, (_, i) => i + 1));
        const sizes = [...of(n, agents).values()].map((s) => s.length);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
        // each agent's share over 3 worker threads: the same sessions, once each
        const again = [...agentShares(n, agents).values()]
          .flatMap((sh) => splitShare(sh, 3, n))
          .flatMap((sh) => [...sessionsIn(sh, n)]);
        expect(again.sort((a, b) => a - b)).toEqual(all);
      }
  });

  it('deals a share over at most as many parts as it has sessions, and a cap so the parts sum to it', () => {
    expect(splitShare(ALL, 2, 5).map((sh) => [...sessionsIn(sh, 5)])).toEqual([
      [1, 3, 5],
      [2, 4],
    ]);
    expect(splitShare(ALL, 4, 2).map((sh) => [...sessionsIn(sh, 2)])).toEqual([[1], [2]]);
    expect(splitShare({ first: 2, step: 3 }, 2, 20).map((sh) => [...sessionsIn(sh, 20)])).toEqual([
      [2, 8, 14, 20],
      [5, 11, 17],
    ]);
    expect(splitCap(7, 3)).toEqual([3, 2, 2]);
    expect(() => splitCap(2, 3)).toThrow(/--max-in-flight 2 is below the 3 executors/);
  });
});

// A closed-loop cell of n streams on one true timeline: each stream sends, waits a TTFT, then one chunk of 1..3
// tokens every step (jittered), re-sends at once after maxTokens.
function trueCell(n: number, seed: number): Sent[] {
  const rnd = mulberry32(seed);
  const out: Sent[] = [];
  for (let slot = 1; slot <= n; slot++) {
    let t = 1e6 + rnd() * 5;
    while (t < 1e6 + 12_000) {
      const sentAtMs = t;
      const first = t + 20 + rnd() * 40;
      const chunks: Array<[number, number]> = [];
      let at = first;
      let tokens = 0;
      while (tokens < 64) {
        const k = Math.min(64 - tokens, 1 + Math.floor(rnd() * 3));
        chunks.push([at, k]);
        tokens += k;
        at += 8 + rnd() * 8;
      }
      const record: RequestRecord = {
        sentAtMs,
        firstTokenAtMs: first,
        endAtMs: chunks[chunks.length - 1]![0],
        chunks,
        outputTokens: tokens,
        tokenCountSource: 'continuous_usage',
        ok: true,
      };
      const spec = {
        cell: 'decode 1024x8',
        phase: 'window' as const,
        contextTokens: 1024,
        slot,
        maxOutput: 64,
      };
      out.push({ spec, requestId: `r${slot}-${out.length}`, record, estTokens: 1024 });
      t = record.endAtMs;
    }
  }
  return out.sort((a, b) => a.record.endAtMs - b.record.endAtMs);
}

describe('merging the agents of a cell', () => {
  const window = { openMs: 1e6 + 2_000, closeMs: 1e6 + 10_000 };
  const k = 4;
  // Agent i's clock: i = 0 is the coordinator; 1 is 50 ms ahead, 2 is 50 ms behind, 3 drifts 1 ms/s from -20 ms.
  const skews: Array<(t: number) => number> = [() => 0, () => -50, () => 50, (t) => 20 + (t - 1e6) / 1000];

  function split(truth: Sent[], delays: [number, number]) {
    const local = truth.filter((s) => (s.spec.slot - 1) % k === 0);
    const shares = [1, 2, 3].map((agent) => {
      const skew = skews[agent]!;
      const mine = truth.filter((s) => (s.spec.slot - 1) % k === agent);
      const sent = mine.map((s) => ({ ...s, record: shiftRecord(s.record, (t) => t - skew(t)) }));
      const measure = (at: number): ClockOffset =>
        bestOffset(
          Array.from({ length: 20 }, (_, i) => exchange(at + i * 3, delays[0], delays[1], 0.05, skew)),
        )!;
      return { agent, sent, before: measure(1e6 - 500), after: measure(1e6 + 12_500) };
    });
    return { local, shares };
  }

  it('gives the single-client figures exactly when the offsets are exact (symmetric trips)', () => {
    const truth = trueCell(8, 11);
    const { local, shares } = split(truth, [0.4, 0.4]);
    for (const sh of shares)
      expect(sh.sent[0]!.record.sentAtMs).not.toBeCloseTo(truth[0]!.record.sentAtMs, 0);
    const merged = mergeShares(local, shares);
    expect(merged).toHaveLength(truth.length);
    const got = windowFigures(
      merged.map((s) => s.record),
      window,
    );
    const want = windowFigures(
      truth.map((s) => s.record),
      window,
    );
    expect(got.outputTokens).toBe(want.outputTokens);
    expect(got.completed).toBe(want.completed);
    expect(got.totalTokensPerS!).toBeCloseTo(want.totalTokensPerS!, 6);
    expect(got.ttftMs!).toBeCloseTo(want.ttftMs!, 6);
    expect(got.perRequestTokensPerS!).toBeCloseTo(want.perRequestTokensPerS!, 6);
    expect(got.chunkGapMs.p99!).toBeCloseTo(want.chunkGapMs.p99!, 6);
    for (let i = 1; i < merged.length; i++)
      expect(merged[i]!.record.endAtMs).toBeGreaterThanOrEqual(merged[i - 1]!.record.endAtMs);
  });

  it('is right to the offsets uncertainty when the trips are lopsided', () => {
    const truth = trueCell(8, 12);
    const { local, shares } = split(truth, [0.1, 3.9]); // 2 ms uncertainty, estimate off by 1.9 ms
    const merged = mergeShares(local, shares);
    const u = Math.max(...shares.map((s) => offsetUncertainty(s.before, s.after)));
    expect(u).toBeCloseTo(2, 1);
    // The merged window holds what the true window holds, give or take the chunks within u of either edge.
    const edge = (w: typeof window) =>
      windowFigures(
        truth.map((s) => s.record),
        w,
      ).outputTokens;
    const lo = edge({ openMs: window.openMs + u, closeMs: window.closeMs - u });
    const hi = edge({ openMs: window.openMs - u, closeMs: window.closeMs + u });
    const got = windowFigures(
      merged.map((s) => s.record),
      window,
    ).outputTokens;
    expect(got).toBeGreaterThanOrEqual(lo);
    expect(got).toBeLessThanOrEqual(hi);
    expect(hi).toBeGreaterThan(lo); // the bound is not empty: the test can fail
    // TTFT is a difference on one clock: it does not move at all.
    const ttfts = (l: Sent[]) =>
      l.map((s) => s.record.firstTokenAtMs! - s.record.sentAtMs).sort((a, b) => a - b);
    ttfts(merged).forEach((v, i) => expect(v).toBeCloseTo(ttfts(truth)[i]!, 6));
  });

  it('names the busiest agent in the client self-check', () => {
    const load = (p99: number, busy: number) => ({
      loopDelayP99Ms: p99,
      loopDelayMaxMs: p99 * 2,
      cpuPctPerThread: busy / 2,
      threads: 1,
      wallMs: 8000,
      busiestLoopPct: busy,
      busiestLoop: 'main thread',
    });
    const w = worstLoad([
      { agent: 0, load: load(1, 20) },
      { agent: 2, load: load(7, 95) },
      { agent: 1, load: load(2, 30) },
    ])!;
    expect(w.loopDelayP99Ms).toBe(7);
    expect(w.threads).toBe(3);
    expect(w.busiestLoop).toBe('agent 2 main thread');
    expect(worstLoad([])).toBeUndefined();
  });
});

describe('wire messages', () => {
  it('accepts an agent message and refuses a malformed one with the path named', () => {
    const ok = parseFromAgent({ type: 'first', seq: 3, session: 2 });
    expect(ok).toEqual({ ok: true, value: { type: 'first', seq: 3, session: 2 } });
    const bad = parseFromAgent({ type: 'records', seq: 1, sent: [{ requestId: 'x' }] });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toMatch(/^sent\.0\./);
    expect(parseFromAgent({ type: 'nope' }).ok).toBe(false);
  });
});
