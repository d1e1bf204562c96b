import type { ClientLoad, LoopGauge } from '../client/self-check.js';
import { sleep, type Clock } from '../clock.js';
import type { BenchError } from '../errors.js';
import { contextLabel } from '../format/labels.js';
import { decodeKey } from '../results/cell-key.js';
import type { ServerSample } from '../results/schema.js';
import type { MeasureWindow } from '../stats/window.js';
import type { MetricsSampler } from '../target/metrics-sampler.js';
import { fatalError } from './fatal.js';
import type { Sender, Sent } from './sender.js';
import type { RunSettings } from './settings.js';
import { inThreadSlots, type SlotEvents, type SlotRunner } from './slots.js';
import { workerSlots } from './workers/worker-slots.js';
import type { CellAgentsRun } from './agents/cell-agents.js';
import { worstLoad } from './agents/merge.js';
import { errorLimit, type CellAt, type SlotSpec } from './workers/slot-loop.js';

// One cell's coordinates and the run settings its window reads (seconds, as the options; workers > 1: the slots'
// loops run on worker threads, src/bench/workers).
export type DecodeCellSpec = CellAt & Pick<RunSettings, 'maxOutput' | 'duration' | 'rampTimeout' | 'workers'>;

// The client's own load over the window (src/client/self-check.ts ClientMonitor); injectable so a virtual-time
// run, whose window is not real time, measures nothing.
export interface CellMonitor {
  start(workers?: readonly LoopGauge[]): void;
  stop(): ClientLoad;
}

export interface DecodeCellRun {
  window: MeasureWindow;
  sent: Sent[]; // ramp and window requests, in end order
  rampTimedOut: boolean;
  errorLimitHit: boolean;
  samples: ServerSample[];
  fatal?: BenchError; // a refusal no retry can fix (key, model, too long): the cell stops
  interrupted: boolean;
  clientLoad?: ClientLoad; // over several agents: the busiest one's (agents/merge.ts worstLoad)
  agents?: CellAgentsRun; // the slots ran on several machines (docs/distributed.md)
}

// Where a cell's slots run, when not in this process alone: the agents' runner (agents/hub.ts).
export type SlotsOn = (spec: SlotSpec) => SlotRunner;

export { errorLimit };

/** The threads a cell's slots run on: the main thread, plus N worker threads when N > 1 (one runs in-thread). */
export const clientThreads = (workers: number | undefined): number => ((workers ?? 1) > 1 ? 1 + workers! : 1);

// docs/method.md "Sustained decode cell": ramp N slots, keep N in flight (closed loop), open the window when every
// slot has produced a first token (or at the ramp timeout), close it after the fixed duration, abort everything in
// flight.
export async function runDecodeCell(
  sender: Sender,
  clock: Clock,
  spec: DecodeCellSpec,
  sampler: MetricsSampler | undefined,
  stop: AbortSignal,
  monitor?: CellMonitor,
  slotsOn?: SlotsOn,
): Promise<DecodeCellRun> {
  const n = spec.concurrency;
  const durationMs = spec.duration * 1000;
  const rampTimeoutMs = spec.rampTimeout * 1000;
  const slotSpec: SlotSpec = {
    cell: decodeKey(spec.contextTokens, n),
    contextTokens: spec.contextTokens,
    concurrency: n,
    maxOutput: spec.maxOutput,
    // A decode request lives at most until the window closes: its first-token deadline must not cut a queued one.
    firstTokenTimeoutMs: rampTimeoutMs + durationMs + 60_000,
  };
  const slots: SlotRunner = slotsOn
    ? slotsOn(slotSpec)
    : clientThreads(spec.workers) > 1
      ? workerSlots(sender, slotSpec, spec.workers!)
      : inThreadSlots(sender, clock, slotSpec);
  const early = new AbortController(); // fatal error, error limit or interrupt: skip the remaining waits
  const onStop = () => early.abort();
  stop.addEventListener('abort', onStop, { once: true });
  const rampDone = new AbortController();
  const firstSeen = new Set<number>();
  let errors = 0;
  let errorLimitHit = false;
  let fatal: Parameters<SlotEvents['onError']>[0];
  try {
    await slots.start({
      early: early.signal,
      endEarly: () => early.abort(),
      onFirstToken: (slot) => {
        firstSeen.add(slot);
        if (firstSeen.size === n) rampDone.abort();
      },
      onError: (f) => {
        errors += 1;
        if (f && !fatal) fatal = f;
        if (!fatal && errors < errorLimit(n)) return false;
        errorLimitHit = !fatal;
        early.abort();
        return true;
      },
    });
    await sleep(clock, rampTimeoutMs, AbortSignal.any([rampDone.signal, early.signal]));
    const rampTimedOut = firstSeen.size < n;
    const openMs = clock.now();
    slots.openWindow({ openMs, closeMs: openMs + durationMs });
    sampler?.start(openMs);
    monitor?.start(slots.loops?.() ?? []);
    await sleep(clock, durationMs, early.signal);
    const closeMs = clock.now();
    const ownLoad = monitor?.stop();
    slots.close();
    const samples = sampler ? await sampler.stop() : [];
    const sent = await slots.finished();
    const agents = slots.agents?.();
    const clientLoad = agents
      ? worstLoad([...(ownLoad ? [{ agent: 0, load: ownLoad }] : []), ...agents.loads])
      : ownLoad;
    const run: DecodeCellRun = {
      window: { openMs, closeMs },
      sent,
      rampTimedOut,
      errorLimitHit,
      samples,
      interrupted: stop.aborted,
      ...(clientLoad ? { clientLoad } : {}),
      ...(agents ? { agents } : {}),
    };
    if (fatal)
      run.fatal = fatalError(
        fatal.code,
        fatal.sent.record,
        `decode ${contextLabel(spec.contextTokens)} x${n}`,
      );
    return run;
  } finally {
    stop.removeEventListener('abort', onStop);
  }
}
