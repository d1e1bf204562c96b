import { describe, expect, it } from 'vitest';
import { buildDecodeCell } from '../../src/bench/cell-result.js';
import { runDecodeCell, type DecodeCellRun, type DecodeCellSpec } from '../../src/bench/decode-cell.js';
import { Sender } from '../../src/bench/drive/sender.js';
import {
  VIRTUAL_START_MS,
  memoryStream,
  simTargetInfo,
  virtualRig,
  type VirtualRunOptions,
} from './virtual-run.js';

// One decode cell (ramp -> window -> close) on the sim's engine in virtual time: every bound below is exact
// arithmetic on the engine model (tiny: 2 ms decode steps), whatever the load on the machine.
function cellRig(sim: VirtualRunOptions['sim'] = {}) {
  const rig = virtualRig({ sim });
  const clock = rig.clock;
  const sender = new Sender(
    { baseUrl: 'http://127.0.0.1:9/v1', api: 'chat', ignoreEos: true, sampling: {}, idPrefix: 't' },
    simTargetInfo(rig.sim),
    { prompt: async (c: number, slot: number) => ({ text: `p ${c} ${slot}`, estTokens: c }) },
    memoryStream(rig.sim, rig.clock),
    clock,
  );
  const run = (spec: DecodeCellSpec, stop = new AbortController().signal) =>
    rig.drive(runDecodeCell(sender, clock, spec, undefined, stop));
  return { ...rig, run };
}

const figures = (spec: DecodeCellSpec, run: DecodeCellRun) =>
  buildDecodeCell({
    ...spec,
    window: run.window,
    requests: run.sent.map((s) => ({ ...s.record, errorKind: s.record.error?.kind })),
    samples: [],
    rampTimedOut: run.rampTimedOut,
    errorLimitHit: run.errorLimitHit,
    queueReference: null,
  });

describe('decode cell (closed loop, the sim in virtual time)', () => {
  it('keeps N in flight, re-sends ended slots, aborts everything at the close', async () => {
    const r = cellRig();
    const spec = { contextTokens: 1000, concurrency: 4, maxOutput: 20, duration: 0.4, rampTimeout: 1 };
    const run = await r.run(spec);
    expect(run.rampTimedOut).toBe(false);
    expect(run.window.closeMs - run.window.openMs).toBe(400);
    // a request lives ~40 ms (20 tokens x 2 ms): every slot is re-sent several times in 400 ms
    const slots = run.sent.map((s) => s.spec.slot);
    for (const slot of [1, 2, 3, 4]) expect(slots.filter((x) => x === slot).length).toBeGreaterThanOrEqual(5);
    expect(new Set(slots)).toEqual(new Set([1, 2, 3, 4]));
    // the window opened at the last slot's first token, not before
    const firstBySlot = new Map<number, number>();
    for (const s of run.sent) {
      const t = s.record.firstTokenAtMs;
      if (t !== undefined && !firstBySlot.has(s.spec.slot)) firstBySlot.set(s.spec.slot, t);
    }
    expect(Math.max(...firstBySlot.values())).toBe(run.window.openMs);
    // the last request of each slot was cut at the close, and the sim saw every one go away
    const aborted = run.sent.filter((s) => s.record.error?.kind === 'aborted');
    expect(aborted.map((a) => a.record.endAtMs)).toEqual([1, 2, 3, 4].map(() => run.window.closeMs));
    expect(r.sim.sessions.size).toBe(0);
    const cell = figures(spec, run);
    expect(cell.status).toBe('Valid');
    // 4 streams at 500 tok/s each (2 ms steps), less the first token of every re-sent request's prefill step
    expect(cell.totalTokensPerS!).toBeGreaterThan(1600);
    expect(cell.totalTokensPerS!).toBeLessThanOrEqual(2000);
    expect(cell.avgActive!).toBeGreaterThan(3.5);
  });

  it('opens the window at the ramp timeout when the server cannot run all N, and calls it Requests queued', async () => {
    const r = cellRig({ overrides: { maxNumSeqs: 2 } });
    const spec = {
      contextTokens: 1000,
      concurrency: 4,
      maxOutput: 1000,
      duration: 0.3,
      rampTimeout: 0.1,
    };
    const run = await r.run(spec);
    expect(run.rampTimedOut).toBe(true);
    expect(run.window.openMs - VIRTUAL_START_MS).toBe(100);
    const cell = figures(spec, run);
    expect(cell.status).toBe('Requests queued');
    expect(cell.queueEvidence).toMatch(/at most 2 of 4 requests streamed at once/);
    expect(cell.avgActive!).toBeCloseTo(2, 1);
  });

  it('counts errors, backs off, and stops the cell at the error limit', async () => {
    const r = cellRig({ faults: '500' }); // every request answers HTTP 500
    const spec = {
      contextTokens: 1000,
      concurrency: 2,
      maxOutput: 10,
      duration: 2,
      rampTimeout: 3,
    };
    const run = await r.run(spec);
    expect(run.errorLimitHit).toBe(true);
    const failed = run.sent.filter((s) => s.record.error?.kind === 'http_status');
    // errorLimit(2) = max(10, 2 x 2); the two slots fail in step, so the other slot's failure at the same
    // instant may be logged too
    expect(failed.length).toBeGreaterThanOrEqual(10);
    expect(failed.length).toBeLessThanOrEqual(11);
    // each slot backs off 50, 100, 200, 400 ms between its 5 failures: the cell ends after ~750 ms, not 5 s
    expect(r.clock.now() - VIRTUAL_START_MS).toBeGreaterThanOrEqual(750);
    expect(r.clock.now() - VIRTUAL_START_MS).toBeLessThan(800);
    const cell = figures(spec, run);
    expect(cell.status).toBe('Failed');
    expect(cell.errors?.http_status).toBe(failed.length);
    expect(cell.totalTokensPerS).toBeNull();
  });

  it('stops at once when interrupted', async () => {
    const r = cellRig();
    const stop = new AbortController();
    r.clock.setTimer(() => stop.abort(), 100);
    const spec = { contextTokens: 1, concurrency: 2, maxOutput: 1000, duration: 5, rampTimeout: 1 };
    const run = await r.run(spec, stop.signal);
    expect(run.interrupted).toBe(true);
    expect(r.clock.now() - VIRTUAL_START_MS).toBe(100);
    expect(r.sim.sessions.size).toBe(0);
  });
});
