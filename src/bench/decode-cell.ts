import type { ClientLoad } from '../client/self-check.js';
import { sleep, type Clock } from '../clock.js';
import type { BenchError } from '../errors.js';
import { contextLabel } from '../format/labels.js';
import { decodeKey } from '../results/cell-key.js';
import type { ServerSample } from '../results/schema.js';
import type { MeasureWindow } from '../stats/window.js';
import type { MetricsSampler } from '../target/metrics-sampler.js';
import { fatalError } from './drive/fatal.js';
import type { Sender, Sent } from './drive/sender.js';
import type { RunSettings } from './settings.js';
import { inThreadSessions } from './drive/in-thread.js';
import {
  clientThreads,
  type CellAgentsRun,
  type CellMonitor,
  type SessionEvents,
  type SessionRunner,
} from './drive/runner.js';
import { workerSessions } from './drive/workers/worker-sessions.js';
import { worstLoad } from './drive/agents/merge.js';
import { errorLimit, type CellAt, type SlotSpec } from './drive/session-loop.js';

// One cell's coordinates and the run settings its window reads (seconds, as the options; workers > 1: the slots'
// loops run on worker threads, src/bench/drive/workers).
export type DecodeCellSpec = CellAt & Pick<RunSettings, 'maxOutput' | 'duration' | 'rampTimeout' | 'workers'>;

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
export type SessionsOn = (spec: SlotSpec) => SessionRunner;

export { errorLimit };

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
  sessionsOn?: SessionsOn,
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
  const slots: SessionRunner = sessionsOn
    ? sessionsOn(slotSpec)
    : clientThreads(spec.workers) > 1
      ? workerSessions(sender, slotSpec, spec.workers!)
      : inThreadSessions(sender, clock, slotSpec);
  const early = new AbortController(); // fatal error, error limit or interrupt: skip the remaining waits
  const onStop = () => early.abort();
  stop.addEventListener('abort', onStop, { once: true });
  const rampDone = new AbortController();
  const firstSeen = new Set<number>();
  let errors = 0;
  let errorLimitHit = false;
  let fatal: Parameters<SessionEvents['onError']>[0];
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
