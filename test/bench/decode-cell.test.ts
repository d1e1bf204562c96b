import { describe, expect, it } from 'vitest';
import { realClock } from '../../src/bench/context.js';
import { runDecodeCell } from '../../src/bench/decode-cell.js';
import { buildDecodeCell } from '../../src/bench/cell-result.js';
import { Sender } from '../../src/bench/sender.js';
import { fakeServer } from './fake-server.js';

const info = {
  engine: { name: 'generic' },
  model: 'm',
  extensions: {
    ignoreEos: true,
    minTokens: false,
    streamOptions: true,
    continuousUsage: false,
    maxCompletionTokens: false,
  },
};
const prompts = { prompt: async (c: number, slot: number) => ({ text: `p ${c} ${slot}`, estTokens: c }) };
const sender = (stream: ReturnType<typeof fakeServer>['stream']) =>
  new Sender(
    { baseUrl: 'http://127.0.0.1:9/v1', api: 'chat', ignoreEos: true, sampling: {}, idPrefix: 't' },
    info,
    prompts,
    stream,
    realClock,
  );

describe('decode cell (closed loop, fake transport)', () => {
  it('keeps N in flight, re-sends ended slots, aborts everything at the close', async () => {
    const srv = fakeServer({ stepMs: 5, slots: 8, ttftMs: 10 });
    const spec = { contextTokens: 1000, concurrency: 4, maxOutput: 20, durationMs: 400, rampTimeoutMs: 1000 };
    const run = await runDecodeCell(
      sender(srv.stream),
      realClock,
      spec,
      undefined,
      new AbortController().signal,
    );
    expect(run.rampTimedOut).toBe(false);
    expect(run.window.closeMs - run.window.openMs).toBeGreaterThanOrEqual(395);
    // each request lives ~110 ms: every slot is re-sent at least once in 400 ms
    expect(run.sent.length).toBeGreaterThanOrEqual(8);
    const slots = new Set(run.sent.map((s) => s.spec.slot));
    expect([...slots].sort()).toEqual([1, 2, 3, 4]);
    // the window opened only after every slot's first token
    const firstBySlot = new Map<number, number>();
    for (const s of run.sent) {
      const t = s.record.firstTokenAtMs;
      if (t !== undefined && !firstBySlot.has(s.spec.slot)) firstBySlot.set(s.spec.slot, t);
    }
    for (const t of firstBySlot.values()) expect(t).toBeLessThanOrEqual(run.window.openMs + 1);
    // the last request of each slot was cut at the close
    const aborted = run.sent.filter((s) => s.record.error?.kind === 'aborted');
    expect(aborted.length).toBe(4);
    for (const a of aborted) expect(a.record.endAtMs).toBeGreaterThanOrEqual(run.window.closeMs);
    expect(srv.running()).toBe(0);
    const cell = buildDecodeCell({
      ...spec,
      window: run.window,
      requests: run.sent.map((s) => ({ ...s.record, errorKind: s.record.error?.kind })),
      samples: [],
      rampTimedOut: run.rampTimedOut,
      errorLimitHit: false,
      queueReference: null,
    });
    expect(cell.status).toBe('Valid');
    // 4 streams at up to 200 tok/s minus the re-send gaps (fewer when timers run late on a busy machine)
    expect(cell.totalTokensPerS!).toBeGreaterThan(300);
    expect(cell.totalTokensPerS!).toBeLessThan(850);
    expect(cell.avgActive!).toBeGreaterThan(2.5);
    expect(cell.cacheHitRatio).toBe(0.9);
  });

  it('opens the window at the ramp timeout when the server cannot run all N, and calls it Requests queued', async () => {
    const srv = fakeServer({ stepMs: 5, slots: 2, ttftMs: 5 });
    const spec = {
      contextTokens: 1000,
      concurrency: 4,
      maxOutput: 1000,
      durationMs: 300,
      rampTimeoutMs: 100,
    };
    const run = await runDecodeCell(
      sender(srv.stream),
      realClock,
      spec,
      undefined,
      new AbortController().signal,
    );
    expect(run.rampTimedOut).toBe(true);
    const cell = buildDecodeCell({
      ...spec,
      window: run.window,
      requests: run.sent.map((s) => ({ ...s.record, errorKind: s.record.error?.kind })),
      samples: [],
      rampTimedOut: true,
      errorLimitHit: false,
      queueReference: null,
    });
    expect(cell.status).toBe('Requests queued');
    expect(cell.queueEvidence).toMatch(/at most 2 of 4 requests streamed at once/);
    expect(cell.avgActive!).toBeCloseTo(2, 0);
  });

  it('counts errors, backs off, and stops the cell at the error limit', async () => {
    const srv = fakeServer({ stepMs: 5, slots: 8, ttftMs: 5, failEvery: 1 });
    const spec = {
      contextTokens: 1000,
      concurrency: 2,
      maxOutput: 10,
      durationMs: 2000,
      rampTimeoutMs: 3000,
    };
    const t0 = realClock.now();
    const run = await runDecodeCell(
      sender(srv.stream),
      realClock,
      spec,
      undefined,
      new AbortController().signal,
    );
    expect(realClock.now() - t0).toBeLessThan(1500);
    expect(run.errorLimitHit).toBe(true);
    expect(run.sent.filter((s) => s.record.error?.kind === 'http_status').length).toBeGreaterThanOrEqual(10);
    const cell = buildDecodeCell({
      ...spec,
      window: run.window,
      requests: run.sent.map((s) => ({ ...s.record, errorKind: s.record.error?.kind })),
      samples: [],
      rampTimedOut: run.rampTimedOut,
      errorLimitHit: run.errorLimitHit,
      queueReference: null,
    });
    expect(cell.status).toBe('Failed');
    expect(cell.errors?.http_status).toBeGreaterThanOrEqual(10);
    expect(cell.totalTokensPerS).toBeNull();
  });

  it('stops at once when interrupted', async () => {
    const srv = fakeServer({ stepMs: 5, slots: 8, ttftMs: 5 });
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 100);
    const t0 = realClock.now();
    const run = await runDecodeCell(
      sender(srv.stream),
      realClock,
      { contextTokens: 1, concurrency: 2, maxOutput: 1000, durationMs: 5000, rampTimeoutMs: 1000 },
      undefined,
      stop.signal,
    );
    expect(run.interrupted).toBe(true);
    expect(realClock.now() - t0).toBeLessThan(1000);
    expect(srv.running()).toBe(0);
  });
});
