import { cellKey } from '../cell-rules.js';
import type { Clock } from '../clock.js';
import { contextLabel } from '../format/labels.js';
import type { LevelSpec } from '../load/sessions.js';
import { decodeKey } from '../results/cell-key.js';
import type { MetricsSampler } from '../target/metrics-sampler.js';
import type { CellMonitor } from './drive/runner.js';
import type { Sender } from './drive/sender.js';
import { errorLimit } from './drive/session-loop.js';
import { runLevel, type LevelRun, type SessionsOn } from './run-level.js';
import type { RunSettings } from './settings.js';

// A decode cell's place in the matrix.
export interface CellAt {
  contextTokens: number;
  concurrency: number;
}

// One cell's coordinates and the run settings its window reads (seconds, as the options; workers > 1: the
// sessions run on worker threads, src/bench/drive/workers).
export type DecodeCellSpec = CellAt & Pick<RunSettings, 'maxOutput' | 'duration' | 'rampTimeout' | 'workers'>;

// A decode cell's run: its window, its requests and what ended it (run-level.ts LevelRun).
export type DecodeCellRun = LevelRun;

export { errorLimit, type SessionsOn };

/** A decode cell as a load level: the fixed workload's closed loop of N sessions at context C (src/load). */
export function cellLevel(contextTokens: number, concurrency: number, maxOutput: number): LevelSpec {
  const key = cellKey(contextTokens, concurrency);
  // A slot's prompt is the prompt source's (docs/method.md "Prompts"): no run id, seed or salt reaches it.
  return {
    runId: '',
    seed: 0,
    row: String(contextTokens),
    key,
    load: { model: 'closed', concurrency },
    workload: { spec: { kind: 'fixed' } },
    maxOutput,
    contextTokens,
  };
}

// docs/method.md "Sustained decode cell": ramp N slots, keep N in flight (closed loop), open the window when every
// slot has produced a first token (or at the ramp timeout), close it after the fixed duration, abort everything in
// flight.
export function runDecodeCell(
  sender: Sender,
  clock: Clock,
  spec: DecodeCellSpec,
  sampler: MetricsSampler | undefined,
  stop: AbortSignal,
  monitor?: CellMonitor,
  sessionsOn?: SessionsOn,
): Promise<DecodeCellRun> {
  const durationMs = spec.duration * 1000;
  const rampTimeoutMs = spec.rampTimeout * 1000;
  const n = spec.concurrency;
  return runLevel(
    sender,
    clock,
    {
      drive: {
        cell: decodeKey(spec.contextTokens, n),
        label: `${contextLabel(spec.contextTokens)} x${n}`,
        level: cellLevel(spec.contextTokens, n, spec.maxOutput),
        // A decode request lives at most until the window closes: its first-token deadline must not cut a queued
        // one.
        firstTokenTimeoutMs: rampTimeoutMs + durationMs + 60_000,
      },
      label: `decode ${contextLabel(spec.contextTokens)} x${n}`,
      durationMs,
      rampTimeoutMs,
      ...(spec.workers !== undefined ? { workers: spec.workers } : {}),
    },
    sampler,
    stop,
    monitor,
    sessionsOn,
  );
}
