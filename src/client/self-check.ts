// The client checks itself (docs/method.md): a cell whose timings were shaped by our own process, not by the
// server, must say so. Two signs, measured over the cell: the event loop ran late (a chunk that arrived
// waited in the kernel for the loop, so its stamp is late), or the client's CPU was saturated.
import { CPU_BOUND_PCT, LOOP_BUSY_PCT } from '../cell-rules.js';
import {
  monitorEventLoopDelay,
  performance,
  type EventLoopUtilization,
  type IntervalHistogram,
} from 'node:perf_hooks';

export interface ClientLoad {
  loopDelayP99Ms: number; // event-loop delay p99 of the main thread over the cell
  loopDelayMaxMs: number;
  // The loop delay at the median of the window's time (each tick weighted by its length): what an arrival
  // typically waited for the loop. One long pause leaves it small; a client starved throughout does not.
  loopDelayTimeP50Ms?: number;
  cpuPctPerThread: number; // client CPU (all threads of the process) / wall time / threads, in % of a core
  threads: number; // the main thread plus decode workers
  wallMs: number;
  // The busiest thread's event loop over the window (share of wall time not idle, in %), and which it was: a
  // worker that saturates shows here though the main thread's delay and the CPU averaged over threads look calm.
  busiestLoopPct?: number;
  busiestLoop?: string; // 'main thread' | 'worker 2'
}

/** A thread's event-loop utilization: `performance` here, `worker.performance` for a worker thread. */
export interface LoopGauge {
  eventLoopUtilization(prev?: EventLoopUtilization): EventLoopUtilization;
}

export interface ClientCheck extends ClientLoad {
  clientBound: boolean;
  reason?: string; // why, in one line, when clientBound
}

// Thresholds: a loop delay matters against the time between tokens it blurs (25%), never below 5 ms (GC and
// timer noise); at 90% of a core per thread the client has no slack left to stamp arrivals on time.
export const LOOP_DELAY_FLOOR_MS = 5;
export const LOOP_DELAY_SHARE_OF_TBT = 0.25;
export { CPU_BOUND_PCT, LOOP_BUSY_PCT, clientSaturated } from '../cell-rules.js';

/** Pure judge. `tbtMs`: the cell's time between tokens (median), null when unknown. */
export function judgeClient(load: ClientLoad, tbtMs: number | null | undefined): ClientCheck {
  const limit = Math.max(LOOP_DELAY_FLOOR_MS, LOOP_DELAY_SHARE_OF_TBT * (tbtMs ?? 0));
  const reasons: string[] = [];
  if (load.loopDelayP99Ms > limit)
    reasons.push(`event-loop delay p99 ${round1(load.loopDelayP99Ms)} ms > ${round1(limit)} ms`);
  if (load.cpuPctPerThread >= CPU_BOUND_PCT)
    reasons.push(`client CPU ${Math.round(load.cpuPctPerThread)}% of a core per thread`);
  else if (load.busiestLoopPct !== undefined && load.busiestLoopPct >= LOOP_BUSY_PCT)
    reasons.push(
      `${load.busiestLoop ?? 'a thread'}'s event loop busy ${Math.round(load.busiestLoopPct)}% of the window`,
    );
  return reasons.length
    ? { ...load, clientBound: true, reason: reasons.join('; ') }
    : { ...load, clientBound: false };
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/**
 * The delay at the median of the time the ticks cover, from a delay histogram's percentiles (percentile -> tick
 * length in ns, ascending): a tick of length L covers L of the window and was late by L - resolution.
 */
export function timeMedianDelayMs(percentiles: ReadonlyMap<number, number>, resolutionMs: number): number {
  const parts: Array<[number, number]> = []; // [time weight, tick length ms]
  let prev = 0;
  let total = 0;
  for (const [pct, ns] of percentiles) {
    const ms = ns / 1e6;
    const w = ((pct - prev) / 100) * ms;
    prev = pct;
    if (w <= 0) continue;
    parts.push([w, ms]);
    total += w;
  }
  let acc = 0;
  for (const [w, ms] of parts) {
    acc += w;
    if (acc >= total / 2) return Math.max(0, ms - resolutionMs);
  }
  return 0;
}

/** Measures one cell: start() at the window open, stop() at its close. */
export class ClientMonitor {
  private h: IntervalHistogram | undefined;
  private cpu0: NodeJS.CpuUsage | undefined;
  private t0 = 0;
  private loops: Array<{ name: string; gauge: LoopGauge; at: EventLoopUtilization }> = [];

  constructor(
    private readonly threads = 1,
    private readonly resolutionMs = 10,
  ) {}

  /** `workers`: the decode worker threads' gauges, when the slots run on workers. */
  start(workers: readonly LoopGauge[] = []): void {
    const gauges = [performance as LoopGauge, ...workers];
    this.loops = gauges.map((gauge, i) => ({
      name: i === 0 ? 'main thread' : `worker ${i}`,
      gauge,
      at: gauge.eventLoopUtilization(),
    }));
    this.h?.disable();
    this.h = monitorEventLoopDelay({ resolution: this.resolutionMs });
    this.h.enable();
    this.cpu0 = process.cpuUsage();
    this.t0 = performance.now();
  }

  stop(): ClientLoad {
    const wallMs = Math.max(1e-3, performance.now() - this.t0);
    const cpu = process.cpuUsage(this.cpu0);
    const h = this.h;
    h?.disable();
    this.h = undefined;
    // Node records each tick's full interval (resolution included, about 10.07 ms when idle at 10 ms): the
    // delay is what exceeds the resolution. No samples (a window shorter than one tick) is no delay.
    const has = h !== undefined && h.count > 0;
    const late = (ns: number) => Math.max(0, ns / 1e6 - this.resolutionMs);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const busiest = this.busiest();
    return {
      ...busiest,
      loopDelayP99Ms: has ? late(h.percentile(99)) : 0,
      loopDelayMaxMs: has ? late(h.max) : 0,
      loopDelayTimeP50Ms: has ? timeMedianDelayMs(h.percentiles, this.resolutionMs) : 0,
      cpuPctPerThread: (100 * cpuMs) / wallMs / this.threads,
      threads: this.threads,
      wallMs,
    };
  }

  private busiest(): { busiestLoopPct?: number; busiestLoop?: string } {
    let best: { busiestLoopPct?: number; busiestLoop?: string } = {};
    for (const l of this.loops) {
      let pct: number;
      try {
        pct = 100 * l.gauge.eventLoopUtilization(l.at).utilization;
      } catch {
        continue; // a worker that has exited has no gauge left
      }
      if (Number.isFinite(pct) && pct > (best.busiestLoopPct ?? -1))
        best = { busiestLoopPct: pct, busiestLoop: l.name };
    }
    this.loops = [];
    return best;
  }
}
