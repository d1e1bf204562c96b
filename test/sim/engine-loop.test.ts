import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/sim/clock.js';
import { EngineLoop, type SeqSink } from '../../src/sim/engine-loop.js';
import { Scheduler } from '../../src/sim/scheduler.js';
import { req, testProfile } from './helpers.js';

class Recorder implements SeqSink {
  got: Array<[number, number]> = [];
  admittedAt: number | undefined;
  finish: string | undefined;
  constructor(private readonly clock: VirtualClock) {}
  admitted(atMs: number): void {
    this.admittedAt = atMs;
  }
  tokens(n: number, _r: number, finish?: string): void {
    this.got.push([this.clock.now(), n]);
    if (finish) this.finish = finish;
  }
}

// A clock whose timers fire `lateMs` after they are due: a busy process.
class LateClock extends VirtualClock {
  constructor(private readonly lateMs: number) {
    super(0);
  }
  override setTimer(fn: () => void, delayMs: number): () => void {
    return super.setTimer(fn, delayMs + this.lateMs);
  }
}

describe('engine loop (real-time driver) in virtual time', () => {
  it('emits each step at its intended end time with zero lag on an on-time clock', () => {
    const clock = new VirtualClock(0);
    const loop = new EngineLoop(new Scheduler(testProfile()), clock);
    const r = new Recorder(clock);
    loop.submit({ ...req('a', 100, 3), arrivalMs: 0 }, r);
    clock.advance(1000);
    expect(r.got).toEqual([
      [100, 1],
      [110, 1],
      [120, 1],
    ]);
    expect(r.admittedAt).toBe(0);
    expect(r.finish).toBe('length');
    expect(loop.lag.summary().maxMs).toBe(0);
  });

  it('when timers fire late, due steps are applied in one pass (merged chunk) and the schedule does not drift', () => {
    const clock = new LateClock(25);
    const loop = new EngineLoop(new Scheduler(testProfile()), clock);
    const r = new Recorder(clock);
    loop.submit({ ...req('a', 16, 20), arrivalMs: 0 }, r);
    clock.advance(10_000);
    // Same tokens in total; 10 ms steps end at 16, 26, 36, ...: the last token is due at 206 and goes out
    // at most one timer-lateness after it.
    expect(r.got.reduce((a, g) => a + g[1], 0)).toBe(20);
    expect(Math.max(...r.got.map((g) => g[1]))).toBeGreaterThan(1);
    expect(r.got.at(-1)![0]).toBeGreaterThanOrEqual(206);
    expect(r.got.at(-1)![0]).toBeLessThanOrEqual(206 + 25 + 10);
    const lag = loop.lag.summary();
    expect(lag.maxMs).toBeGreaterThanOrEqual(15);
    expect(lag.maxMs).toBeLessThanOrEqual(35);
  });

  it('a request that reaches the engine later (API server delay) wakes an idle loop', () => {
    const clock = new VirtualClock(0);
    const loop = new EngineLoop(new Scheduler(testProfile()), clock);
    const r = new Recorder(clock);
    loop.submit({ ...req('a', 16, 1), arrivalMs: 50 }, r);
    clock.advance(1000);
    expect(r.admittedAt).toBe(50);
    expect(r.got).toEqual([[66, 1]]);
  });

  it('a timer that wakes an idle loop late still admits at the arrival: the schedule keeps to it', () => {
    const clock = new LateClock(25);
    const loop = new EngineLoop(new Scheduler(testProfile()), clock);
    const r = new Recorder(clock);
    loop.submit({ ...req('a', 16, 2), arrivalMs: 50 }, r);
    clock.advance(1000);
    // Admitted at 50 (the wake came at 75); its steps end at 66 and 76, both due when the next (late) timer
    // fires at 91, so they go out in one pass.
    expect(r.admittedAt).toBe(50);
    expect(r.got).toEqual([[91, 2]]);
  });

  it('admits in the order requests reach the engine: a short prompt sent later passes one still in the API server', () => {
    // a is sent first but spends 80 ms in the API server (a long prompt); b, sent after it, arrives at 30.
    // Queued by send order, the idle engine woke for b at 30, found a at the head still on its way, admitted
    // nothing and woke again at 30: for ever, at one virtual instant. The clock below stops such a spin.
    let timers = 0;
    const clock = new (class extends VirtualClock {
      override setTimer(fn: () => void, delayMs: number): () => void {
        if (++timers > 1000) throw new Error('the engine loop re-armed 1000 times: it spins');
        return super.setTimer(fn, delayMs);
      }
    })(0);
    const loop = new EngineLoop(new Scheduler(testProfile()), clock);
    const a = new Recorder(clock);
    const b = new Recorder(clock);
    loop.submit({ ...req('a', 16, 1), arrivalMs: 80 }, a);
    loop.submit({ ...req('b', 16, 1), arrivalMs: 30 }, b);
    clock.advance(1000);
    // b: admitted at 30, 16 prompt tokens at 1 ms each -> its one token at 46; a: admitted at 80 -> 96.
    expect([b.admittedAt, b.got]).toEqual([30, [[46, 1]]]);
    expect([a.admittedAt, a.got]).toEqual([80, [[96, 1]]]);
  });

  it('abort removes the request; close stops the loop', () => {
    const clock = new VirtualClock(0);
    const sched = new Scheduler(testProfile());
    const loop = new EngineLoop(sched, clock);
    const r = new Recorder(clock);
    loop.submit({ ...req('a', 16, 100), arrivalMs: 0 }, r);
    clock.advance(50);
    loop.abort('a');
    const n = r.got.length;
    clock.advance(500);
    expect(r.got.length).toBe(n);
    expect(sched.running).toHaveLength(0);
    loop.submit({ ...req('b', 16, 100), arrivalMs: clock.now() }, r);
    loop.close();
    clock.advance(500);
    expect(r.got.length).toBe(n);
  });
});
