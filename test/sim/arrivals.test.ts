import { describe, expect, it } from 'vitest';
import { startSim } from '../../src/sim/index.js';
import type { TruthRecord } from '../../src/sim/truth.js';
import { harness } from './handler-helpers.js';

// Open-loop arrivals (docs/sim.md "Ground truth", "API server delay"): a request sent at any time is in the truth
// at the time it arrived, reaches the engine the API server delay later, and is admitted then, or at the end of
// the step in flight when the engine is busy.

const OVERHEAD_MS = 5;
const API_TOKENS_PER_S = 10_000;
const delayMs = (promptTokens: number) => OVERHEAD_MS + (promptTokens * 1000) / API_TOKENS_PER_S;

// A seeded schedule of exponential gaps (mean 12 ms) and prompts of 1..80 words.
function schedule(n: number): Array<{ atMs: number; words: number }> {
  let x = 11;
  const rnd = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) + 0.5) / 2 ** 32;
  let t = 0;
  return Array.from({ length: n }, () => {
    t += -12 * Math.log(rnd());
    return { atMs: Math.round(t * 1000) / 1000, words: 1 + Math.floor(rnd() * 80) };
  });
}

describe('open-loop arrivals in the truth', () => {
  it('arrival = the schedule, engine arrival = + the API server delay, admission = then or the next step end', () => {
    const h = harness({
      overrides: {
        reasoningTokens: 0,
        requestOverheadMs: OVERHEAD_MS,
        apiTokensPerS: API_TOKENS_PER_S,
        prefillTokensPerS: [[16, 100_000]],
      },
    });
    const start = h.clock.now();
    const plan = schedule(60);
    for (const [i, p] of plan.entries()) {
      h.clock.advanceTo(start + p.atMs);
      h.send(
        'POST',
        '/v1/chat/completions',
        {
          model: 'sim/tiny',
          messages: [
            { role: 'user', content: Array.from({ length: p.words }, (_, k) => `w${i}x${k}`).join(' ') },
          ],
          max_tokens: 6,
          ignore_eos: true,
          stream: true,
        },
        { 'x-request-id': String(i) },
      );
    }
    h.clock.advance(10_000);
    const truth = new Map(h.ctx.truth.all().map((t) => [Number(t.requestId), t]));
    expect(truth.size).toBe(plan.length);
    // A step ends when it emits tokens: every request's chunk times (prompts fit one step, so a step in flight
    // always ends with a chunk of some request running in it).
    const runningAt = (x: number) => [...truth.values()].filter((t) => t.admittedMs! <= x && x < t.endMs);
    let busy = 0;
    for (const [i, p] of plan.entries()) {
      const t = truth.get(i)!;
      expect(t.arrivalMs).toBe(start + p.atMs);
      expect(t.engineArrivalMs).toBeCloseTo(start + p.atMs + delayMs(t.promptTokens), 9);
      const x = t.engineArrivalMs!;
      const others = runningAt(x).filter((o) => o !== t);
      const stepEnds = others.flatMap((o) => o.chunks.map((c) => c[0])).filter((c) => c >= x);
      const want = others.length === 0 ? x : Math.min(...stepEnds);
      if (others.length > 0) busy++;
      expect({ i, admitted: t.admittedMs }).toEqual({ i, admitted: want });
    }
    expect(busy).toBeGreaterThan(10); // the schedule did meet a busy engine
    expect(busy).toBeLessThan(plan.length - 10); // and an idle one
  });
});

describe('the engine loop in real time', () => {
  it('an idle engine admits a request at the time it reaches the engine, not when the loop notices', async () => {
    const sim = await startSim({
      profile: 'tiny',
      overrides: { requestOverheadMs: 20, apiTokensPerS: 0, reasoningTokens: 0 },
    });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${sim.baseUrl}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'sim/tiny',
            messages: [{ role: 'user', content: `hello number ${i}` }],
            max_tokens: 3,
            ignore_eos: true,
          }),
        });
        await res.text();
      }
      const truth: TruthRecord[] = sim.truth();
      expect(truth).toHaveLength(3);
      for (const t of truth) {
        expect(t.engineArrivalMs).toBeCloseTo(t.arrivalMs + 20, 6);
        expect(t.admittedMs).toBe(t.engineArrivalMs);
      }
    } finally {
      await sim.close();
    }
  });
});
