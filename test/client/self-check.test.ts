import { describe, expect, it } from 'vitest';
import { streamRequest } from '../../src/client/stream.js';
import { startSim } from '../../src/sim/index.js';
import { clientCellFigures } from '../../src/client/cell-figures.js';
import { gapSummary } from '../../src/client/decode/gaps.js';
import {
  ClientMonitor,
  judgeClient,
  timeMedianDelayMs,
  type ClientLoad,
} from '../../src/client/self-check.js';

const load = (o: Partial<ClientLoad>): ClientLoad => ({
  loopDelayP99Ms: 0,
  loopDelayMaxMs: 0,
  cpuPctPerThread: 10,
  threads: 1,
  wallMs: 1000,
  ...o,
});

describe('client self-check', () => {
  it('judges loop delay against max(5 ms, 25% of the time between tokens)', () => {
    expect(judgeClient(load({ loopDelayP99Ms: 6 }), 10).clientBound).toBe(true); // limit 5 ms
    expect(judgeClient(load({ loopDelayP99Ms: 6 }), 40).clientBound).toBe(false); // limit 10 ms
    expect(judgeClient(load({ loopDelayP99Ms: 11 }), 40).clientBound).toBe(true);
    expect(judgeClient(load({ loopDelayP99Ms: 4.9 }), null).clientBound).toBe(false);
    expect(judgeClient(load({ loopDelayP99Ms: 5.1 }), null).reason).toBe(
      'event-loop delay p99 5.1 ms > 5 ms',
    );
  });

  it('judges CPU per thread at 90% of a core', () => {
    expect(judgeClient(load({ cpuPctPerThread: 89.9 }), 20).clientBound).toBe(false);
    const both = judgeClient(load({ cpuPctPerThread: 95, loopDelayP99Ms: 30 }), 20);
    expect(both.clientBound).toBe(true);
    expect(both.reason).toBe('event-loop delay p99 30 ms > 5 ms; client CPU 95% of a core per thread');
  });

  it('judges the busiest event loop at 90% of the window, naming the thread', () => {
    expect(judgeClient(load({ busiestLoopPct: 89, busiestLoop: 'worker 2' }), 20).clientBound).toBe(false);
    const w = judgeClient(load({ busiestLoopPct: 96, busiestLoop: 'worker 2', threads: 3 }), 20);
    expect(w.clientBound).toBe(true);
    expect(w.reason).toBe("worker 2's event loop busy 96% of the window");
  });

  it("reads every worker thread's event-loop utilization over the window and keeps the busiest", async () => {
    // A gauge as worker.performance gives it: cumulative idle and active ms since the thread started.
    const gauge = (active: number, idle: number) => {
      let calls = 0;
      return {
        eventLoopUtilization(prev?: { idle: number; active: number; utilization: number }) {
          const now = { idle: idle * (calls + 1), active: active * (calls + 1), utilization: 0 };
          calls++;
          if (!prev) return { ...now, utilization: now.active / (now.active + now.idle) };
          const a = now.active - prev.active;
          const i = now.idle - prev.idle;
          return { idle: i, active: a, utilization: a / (a + i) };
        },
      };
    };
    const m = new ClientMonitor(3);
    m.start([gauge(100, 900), gauge(970, 30)]);
    await new Promise((r) => setTimeout(r, 200)); // the main thread idles: its loop is not the busiest
    const l = m.stop();
    expect(l.busiestLoop).toBe('worker 2');
    expect(l.busiestLoopPct).toBeCloseTo(97, 5);
    expect(judgeClient(l, 20).reason).toContain("worker 2's event loop busy 97%");
  });

  it('a starved client (the loop blocked 60 ms at a time) sees its own delay and is judged client-bound', async () => {
    const m = new ClientMonitor(1);
    m.start();
    for (let i = 0; i < 6; i++) {
      const t = performance.now();
      while (performance.now() - t < 60) {
        // block the event loop like a client drowning in chunks
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    const l = m.stop();
    expect(l.loopDelayMaxMs).toBeGreaterThan(40); // at least the 60 ms block less one 10 ms tick, whatever the load
    expect(l.loopDelayP99Ms).toBeGreaterThan(40);
    // 360 ms blocked in 6 short breaks: most of the window's time sat in a 50 ms delay, whatever the load
    expect(l.loopDelayTimeP50Ms).toBeGreaterThan(40);
    expect(l.cpuPctPerThread).toBeGreaterThan(0);
    expect(l.threads).toBe(1);
    expect(judgeClient(l, 20).clientBound).toBe(true);
  });
});

describe('the loop delay at the median of the time', () => {
  const ms = 1e6;
  it('one long pause among on-time ticks leaves it small; a loop late throughout does not', () => {
    // 99 ticks of 10.1 ms and one of 150 ms: 1,150 ms, of which 999.9 ms on time
    const onePause = new Map([
      [0, 10.1 * ms],
      [99, 10.1 * ms],
      [100, 150 * ms],
    ]);
    expect(timeMedianDelayMs(onePause, 10)).toBeCloseTo(0.1, 6);
    // Node's percentile steps of a loop stalled 40 ms every fifth tick: most of its time is in the stalls
    const stalled = new Map([
      [0, 9.3 * ms],
      [50, 11.5 * ms],
      [75, 19.4 * ms],
      [87.5, 42.8 * ms],
      [93.75, 45.3 * ms],
      [100, 54.1 * ms],
    ]);
    expect(timeMedianDelayMs(stalled, 10)).toBeCloseTo(32.8, 6);
    expect(timeMedianDelayMs(new Map(), 10)).toBe(0);
  });
});

describe('a starved client against the sim', () => {
  it('streams while its loop is blocked: the monitor sees it and the judge says client-bound', async () => {
    const sim = await startSim({ profile: 'tiny' });
    try {
      const m = new ClientMonitor(1);
      m.start();
      let blocking = true;
      const hog = (async () => {
        while (blocking) {
          const t = performance.now();
          while (performance.now() - t < 80) {
            // a client drowning in its own work
          }
          await new Promise((r) => setTimeout(r, 1));
        }
      })();
      const recs = await Promise.all(
        [1, 2, 3, 4].map((i) =>
          streamRequest({
            baseUrl: sim.baseUrl,
            api: 'chat',
            body: {
              model: sim.profile.servedModelName,
              messages: [{ role: 'user', content: `s${i}` }],
              max_tokens: 200,
              ignore_eos: true,
            },
          }),
        ),
      );
      blocking = false;
      await hog;
      const load = m.stop();
      expect(recs.every((r) => r.ok)).toBe(true);
      const check = judgeClient(load, 2); // the sim's 2 ms steps
      expect(check.clientBound).toBe(true);
      expect(check.reason).toContain('event-loop delay');
      // the stamps carry the starvation (the in-process sim starves with it): gaps of about the blocked time
      expect(Math.max(...recs.map((r) => r.maxGapMs ?? 0))).toBeGreaterThan(40);
    } finally {
      await sim.close();
    }
  });
});

describe('stalls', () => {
  it('counts gaps of at least max(1 s, 10x the median) and keeps the largest', () => {
    const chunks: Array<[number, number]> = [];
    let t = 0;
    for (let i = 0; i < 300; i++) {
      t += i === 100 || i === 200 || i === 250 ? 1500 : 20;
      chunks.push([t, 1]);
    }
    expect(gapSummary(chunks)).toEqual({ maxGapMs: 1500, stalls: 3 });
    // slow but steady streams (a 2 s step) are not stalls
    expect(gapSummary(chunks.map(([x], i) => [i * 2000 + x * 0, 1] as [number, number]))?.stalls).toBe(0);
    expect(gapSummary([[5, 1]])).toBeUndefined();
  });
});

describe('client figures of a cell', () => {
  it('gathers the self-check and the attribution label with its bound', () => {
    const w = { openMs: 1000, closeMs: 5000 };
    const steady = {
      chunks: [1000, 1020, 1040, 1060].map((t) => [t, 1] as [number, number]),
      chunkAttribution: 'exact' as const,
    };
    const stalled = {
      chunks: [900, 1100, 1120, 2620, 2640, 5200].map((t) => [t, 2] as [number, number]),
      chunkAttribution: 'estimated' as const,
      unpinnedTokens: 6,
      stalls: 1,
    };
    const f = clientCellFigures([steady, stalled], w, {
      load: { loopDelayP99Ms: 12, loopDelayMaxMs: 30, cpuPctPerThread: 40, threads: 1, wallMs: 4000 },
      tbtMs: 20,
    });
    expect(f.chunkAttribution).toBe('estimated');
    expect(f.windowTokenErrorBound).toBe(6);
    expect(f.client?.clientBound).toBe(true);
    expect(clientCellFigures([steady], w)).toEqual({
      chunkAttribution: 'exact',
      windowTokenErrorBound: 0,
    });
  });
});
