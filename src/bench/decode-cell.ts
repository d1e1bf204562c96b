import { setMaxListeners } from 'node:events';
import type { ErrorCode } from '../errors.js';
import type { ServerSample } from '../results/schema.js';
import type { MeasureWindow } from '../stats/window.js';
import type { MetricsSampler } from '../target/metrics-sampler.js';
import type { BenchClock } from './context.js';
import { fatalCode } from './fatal.js';
import type { Sender, Sent } from './sender.js';
import { runDecodeCellOnWorkers } from './workers/decode-cell-workers.js';

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

// Bounds the closed loop against a server that fails instantly: the cell stops (Failed) after this many errors.
export const errorLimit = (n: number): number => Math.max(10, 2 * n);
const backoffMs = (consecutive: number): number => Math.min(1000, 25 * 2 ** Math.min(consecutive, 6));

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

  const loop = async (slot: number): Promise<void> => {
    let consecutive = 0;
    while (!closing) {
      const s = await sender.send({
        cell,
        phase: state.windowOpenMs === undefined ? 'ramp' : 'window',
        contextTokens,
        concurrency: n,
        slot,
        maxTokens: spec.maxOutput,
        signal: inflight.signal,
        firstTokenTimeoutMs,
        onFirstToken: () => {
          if (firstSeen.has(slot)) return;
          firstSeen.add(slot);
          if (firstSeen.size === n) rampDone.abort();
        },
      });
      sent.push(s);
      const kind = s.record.error?.kind;
      if (s.record.ok || kind === 'aborted') {
        consecutive = 0;
        continue;
      }
      errors += 1;
      consecutive += 1;
      const code = fatalCode(s.record);
      if (code && !fatal) fatal = { code, sent: s };
      if (fatal || errors >= errorLimit(n)) {
        errorLimitHit = !fatal;
        early.abort();
        return;
      }
      // Re-sent (closed loop) and counted; a short backoff so an instant failure cannot spin.
      await clock.sleep(backoffMs(consecutive), early.signal);
    }
  };

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
