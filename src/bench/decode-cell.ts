import { setMaxListeners } from 'node:events';
import type { ErrorCode } from '../errors.js';
import type { ServerSample } from '../results/schema.js';
import type { MeasureWindow } from '../stats/window.js';
import type { MetricsSampler } from '../target/metrics-sampler.js';
import type { BenchClock } from './context.js';
import type { Sender, Sent } from './sender.js';
import { runDecodeCellOnWorkers } from './workers/decode-cell-workers.js';
import { errorLimit, runSlotLoop } from './workers/slot-loop.js';

export interface DecodeCellSpec {
  contextTokens: number;
  concurrency: number;
  maxOutput: number;
  durationMs: number;
  rampTimeoutMs: number;
  workers?: number; // > 1: the slots' loops run on worker threads (src/bench/workers)
}

export interface DecodeCellRun {
  window: MeasureWindow;
  sent: Sent[]; // ramp and window requests, in end order
  rampTimedOut: boolean;
  errorLimitHit: boolean;
  samples: ServerSample[];
  fatal?: { code: ErrorCode; sent: Sent };
  interrupted: boolean;
}

export { errorLimit };

// METHOD.md "Sustained decode": ramp N slots, keep N in flight (closed loop), open the window when every slot has
// produced a first token (or at the ramp timeout), close it after the fixed duration, abort everything in flight.
export async function runDecodeCell(
  sender: Sender,
  clock: BenchClock,
  spec: DecodeCellSpec,
  sampler: MetricsSampler | undefined,
  stop: AbortSignal,
): Promise<DecodeCellRun> {
  if ((spec.workers ?? 1) > 1)
    return runDecodeCellOnWorkers(sender, clock, spec, sampler, stop, spec.workers!);
  const { contextTokens, concurrency: n } = spec;
  const cell = `decode ${contextTokens}x${n}`;
  const inflight = new AbortController();
  const early = new AbortController(); // fatal error, error limit or interrupt: skip the remaining waits
  setMaxListeners(0, inflight.signal, early.signal); // one listener per request in flight
  const onStop = () => early.abort();
  stop.addEventListener('abort', onStop, { once: true });
  const rampDone = new AbortController();
  const firstSeen = new Set<number>();
  const sent: Sent[] = [];
  const state: { windowOpenMs?: number } = {};
  let closing = false;
  let errors = 0;
  let errorLimitHit = false;
  let fatal: DecodeCellRun['fatal'];
  // A decode request lives at most until the window closes: its first-token deadline must not cut a queued one.
  const firstTokenTimeoutMs = spec.rampTimeoutMs + spec.durationMs + 60_000;

  const loop = (slot: number): Promise<void> =>
    runSlotLoop(
      slot,
      sender,
      clock,
      { cell, contextTokens, concurrency: n, maxOutput: spec.maxOutput, firstTokenTimeoutMs },
      inflight.signal,
      early.signal,
      {
        closing: () => closing,
        phase: () => (state.windowOpenMs === undefined ? 'ramp' : 'window'),
        onFirstToken: (s) => {
          firstSeen.add(s);
          if (firstSeen.size === n) rampDone.abort();
        },
        onSent: (s) => sent.push(s),
        onError: (s, code) => {
          errors += 1;
          if (code && !fatal) fatal = { code, sent: s };
          if (!fatal && errors < errorLimit(n)) return false;
          errorLimitHit = !fatal;
          early.abort();
          return true;
        },
      },
    );

  const loops = Array.from({ length: n }, (_, i) => loop(i + 1));
  const rampOrEarly = AbortSignal.any([rampDone.signal, early.signal]);
  await clock.sleep(spec.rampTimeoutMs, rampOrEarly);
  const rampTimedOut = firstSeen.size < n;
  const windowOpenMs = clock.now();
  state.windowOpenMs = windowOpenMs;
  sampler?.start(windowOpenMs);
  await clock.sleep(spec.durationMs, early.signal);
  const closeMs = clock.now();
  closing = true;
  inflight.abort();
  const samples = sampler ? await sampler.stop() : [];
  await Promise.all(loops);
  stop.removeEventListener('abort', onStop);
  const run: DecodeCellRun = {
    window: { openMs: windowOpenMs, closeMs },
    sent,
    rampTimedOut,
    errorLimitHit,
    samples,
    interrupted: stop.aborted,
  };
  if (fatal) run.fatal = fatal;
  return run;
}
