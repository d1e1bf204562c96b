import { describe, expect, it } from 'vitest';
import { queuedSeats } from '../../src/cell-rules.js';
import type { DecodeCell, RunResult } from '../../src/results/schema.js';
import { observe } from '../../src/twin/observe.js';
import { fitTwin } from '../../src/twin/twin.js';
import { demoMeasured, planOf } from './helpers.js';

// The twin's max running sequences read as the answer reads a queued cell's seats (src/cell-rules.ts queuedSeats).
// The demo engine runs 8 at once; its 16-user cells queue. What a real run records of them, in three forms.
const measured = demoMeasured();
const queuedKeys = measured.decode.filter((c) => c.status === 'Requests queued').map((c) => c.concurrency);
const clientQueue = (queued: boolean, peak: number) => ({
  queued,
  referenceTtftMs: 20,
  referenceFrom: "the ×8 cell's median",
  avgPastReference: queued ? 8 : 0.05,
  avgStreaming: 6.6,
  peakStreaming: peak,
  nearPeakShare: 0.9,
  maxWaitMs: 900,
});
const withQueued = (over: Partial<DecodeCell>): RunResult => ({
  ...measured,
  decode: measured.decode.map((c) => (c.status === 'Requests queued' ? { ...c, ...over } : c)),
});
const seatsParam = (r: RunResult) => {
  const t = fitTwin(observe([{ result: r, source: 'demo' }]), planOf(r));
  return { value: t.profile.maxNumSeqs, param: t.params.find((p) => p.name === 'max running sequences')! };
};

describe("the twin's max running sequences", () => {
  it('precondition: the demo queues at 16 users, and its simulated cells carry only the average active', () => {
    expect(queuedKeys.length).toBeGreaterThan(0);
    expect(queuedKeys.every((n) => n === 16)).toBe(true);
  });

  it("is the server's median running where the client's average sat lower (re-send gaps), not the average", () => {
    // running 8 in every sample; the client's average active 6.6 of 16 (each request's gaps between answers):
    // the old rule took round(6.6) = 7
    const r = withQueued({
      avgActive: 6.6,
      serverSamples: [0, 1, 2, 3].map((i) => ({ tMs: i * 1000, running: 8, waiting: 8 })),
    });
    const { value, param } = seatsParam(r);
    expect(value).toBe(8);
    expect(param.quality).toBe("the server's median running 8–8 in queued cells");
    // the answer reads the same seats off the same cell
    expect(queuedSeats(r.decode.find((c) => c.status === 'Requests queued')!)).toEqual({
      seats: 8,
      basis: 'server running',
    });
  });

  it("is the client's ceiling where its timeline saw the queue", () => {
    const { value, param } = seatsParam(withQueued({ avgActive: 6.6, clientQueue: clientQueue(true, 8) }));
    expect(value).toBe(8);
    expect(param.quality).toBe('the most streaming at once 8–8 in queued cells (client timeline)');
  });

  it('keeps the average active for imported results, and says so', () => {
    const { value, param } = seatsParam(withQueued({ avgActive: 7.6 }));
    expect(value).toBe(8); // round(7.6)
    expect(param.quality).toBe('average active 7.6–7.6 in queued cells (no running count in these results)');
  });

  it('is at least N where a cell recorded queued had all N streaming at once (no seat below N)', () => {
    // the reviewer's quick cell, recorded before the running gauge's rule was fixed: 31.479 active, 32 streaming
    const r = withQueued({ avgActive: 15.479, clientQueue: clientQueue(false, 16) });
    const { value, param } = seatsParam(r);
    expect(value).toBe(16); // not round(15.479) = 15
    expect(param.value).toBe('>= 16');
    expect(param.from).toMatch(/^\d+K × 16 ran all 16 at once; a cell above it/);
  });
});
