import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { highestRateWithin } from '../helpers/mdc-queue.js';
import { runVirtual, virtualSettings } from './virtual-run.js';

// --find-rate (docs/workloads.md "The answer in requests per second"): on a sim of S seats whose step does not grow with the batch, answering
// fixed lengths, every request holds a seat for the same time, so the server is an M/D/S queue; the highest rate
// meeting a TTFT service level is then the model's (test/helpers/mdc-queue.ts, written apart from the sim), and
// the search through the whole runner must find it within 10% in at most 8 windows.

const SEATS = 4;
const SIM = { overrides: { maxNumSeqs: SEATS, reasoningTokens: 0 } }; // tiny: a 2 ms step at any batch
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const settings = (over: Record<string, unknown>) =>
  virtualSettings(mkdtempSync(join(tmpdir(), 'find-rate-')), {
    contexts: [512],
    maxOutput: 50,
    warmup: 5,
    ...over,
  });

describe('--find-rate on an M/D/S server', () => {
  it('finds the highest rate meeting a TTFT level within 10% of the M/D/c limit, in at most 8 windows', async () => {
    // One request alone: how long it holds a seat (admitted to its end) and its TTFT unqueued.
    const alone = await runVirtual(settings({ rates: [1], duration: 30 }), { sim: SIM });
    const truth = alone.sim.truth.all().filter((t) => t.admittedMs !== undefined && t.outputTokens === 50);
    const serviceMs = median(truth.map((t) => t.endMs - t.admittedMs!));
    const ttft0 = median(truth.map((t) => t.firstTokenMs! - t.arrivalMs));
    expect(serviceMs).toBeGreaterThan(90); // 50 steps of 2 ms
    expect(serviceMs).toBeLessThan(110);
    // 90% of requests must see their first token within 30 ms of waiting for a seat.
    const slo = { ttftMs: Math.round(ttft0 + 30), share: 0.9 };
    const limit = highestRateWithin(
      { servers: SEATS, serviceMs },
      { boundMs: slo.ttftMs - ttft0, share: 0.9 },
    );
    expect(limit).toBeGreaterThan(15);
    expect(limit).toBeLessThan((SEATS * 1000) / serviceMs);

    const r = await runVirtual(settings({ findRate: true, rates: [8], duration: 30, slo }), { sim: SIM });
    if (r.error) throw r.error;
    const search = r.result.rateSearch![0]!;
    expect(search).toMatchObject({ row: '512', start: 8, startFrom: 'given', done: true });
    expect(search.steps.length).toBeLessThanOrEqual(8);
    expect(search.steps.slice(0, 3).map((s) => s.rate)).toEqual([8, 16, 32]);
    const found = search.highestMeeting!;
    expect(found / limit).toBeGreaterThan(1 / 1.1);
    expect(found / limit).toBeLessThan(1.1);
    // Every step is a level of the result, measured once.
    const keys = r.result.levels!.map((l) => l.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(search.steps.map((s) => s.level)).toEqual(keys);
  });
});
