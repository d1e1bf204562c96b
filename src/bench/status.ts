import type { CellStatus, ServerSample } from '../results/schema.js';
import { median, sortSamples } from '../stats/sorted.js';
import type { WindowFigures } from '../stats/window.js';

// Decisions where METHOD.md leaves the threshold to us (documented in docs/method.md "Status of a cell").
export const QUEUE_WAITING_SAMPLE_FRACTION = 0.5; // metrics: waiting > 0 in at least half the window samples (re-sends wait a step)
export const QUEUE_WAIT_FACTOR = 4; // no metrics: a request sat > 4 x the cell's median TTFT ...
export const QUEUE_WAIT_FLOOR_MS = 1000; // ... and > median TTFT + 1 s (or a quarter of a shorter window)
export const FAIL_ERROR_FRACTION = 0.1; // Failed when errors reach 10% of the requests sent ...
export const FAIL_ERROR_MIN = 2; // ... and at least 2

export interface StatusInput {
  concurrency: number;
  figures: WindowFigures;
  firstTokenWaitsMs: readonly number[];
  samples: readonly ServerSample[];
  errorLimitHit: boolean;
}

export interface StatusDecision {
  status: CellStatus;
  evidence: string; // words for the report: why this status
  error?: string;
}

export function queueWaitThresholdMs(ttftMedianMs: number | null, windowMs: number): number | null {
  if (ttftMedianMs === null) return null;
  const floor = Math.min(QUEUE_WAIT_FLOOR_MS, windowMs / 4);
  return Math.max(QUEUE_WAIT_FACTOR * ttftMedianMs, ttftMedianMs + floor);
}

export function errorCount(f: WindowFigures): number {
  return Object.values(f.errors).reduce((a, b) => a + (b ?? 0), 0);
}

export function decideStatus(input: StatusInput): StatusDecision {
  const { figures: f, concurrency: n } = input;
  const errors = errorCount(f);
  const errorText = Object.entries(f.errors)
    .map(([k, v]) => `${v} ${k}`)
    .join(', ');
  if (input.errorLimitHit)
    return {
      status: 'Failed',
      evidence: `stopped early: ${errors} failed requests (${errorText})`,
      error: `too many failed requests: ${errorText}`,
    };
  if (f.outputTokens === 0)
    return {
      status: 'Failed',
      evidence: 'no output token arrived inside the window',
      error: errors
        ? `no tokens in the window; failed requests: ${errorText}`
        : 'no tokens arrived inside the window',
    };
  if (errors >= Math.max(FAIL_ERROR_MIN, Math.ceil(FAIL_ERROR_FRACTION * f.requestsSent)))
    return {
      status: 'Failed',
      evidence: `${errors} of ${f.requestsSent} requests failed (${errorText})`,
      error: `too many failed requests: ${errorText}`,
    };

  const reasons: string[] = [];
  const waiting = input.samples.filter((s) => typeof s.waiting === 'number');
  if (waiting.length > 0) {
    const withWaiting = waiting.filter((s) => (s.waiting ?? 0) > 0).length;
    const maxW = Math.max(...waiting.map((s) => s.waiting ?? 0));
    if (withWaiting / waiting.length >= QUEUE_WAITING_SAMPLE_FRACTION)
      reasons.push(
        `server metrics showed waiting requests in ${withWaiting} of ${waiting.length} samples (max ${maxW})`,
      );
  }
  const running = sortSamples(
    input.samples.map((s) => s.running).filter((v): v is number => typeof v === 'number'),
  );
  const medRunning = median(running);
  if (medRunning !== null && medRunning < n - 0.5 && f.avgActive !== null && f.avgActive < n - 0.5)
    reasons.push(
      `server ran a median of ${medRunning} requests and the client saw ${f.avgActive.toFixed(1)} active, of ${n}`,
    );
  const threshold = queueWaitThresholdMs(f.ttftMs, f.measuredS * 1000);
  if (threshold !== null) {
    const sat = input.firstTokenWaitsMs.filter((w) => w > threshold);
    if (sat.length > 0)
      reasons.push(
        `${sat.length} request${sat.length > 1 ? 's' : ''} waited up to ${Math.round(Math.max(...sat))} ms for a first token (median TTFT ${Math.round(f.ttftMs ?? 0)} ms, threshold ${Math.round(threshold)} ms)`,
      );
  }
  if (reasons.length > 0) return { status: 'Requests queued', evidence: reasons.join('; ') };
  return { status: 'Valid', evidence: `all ${n} requests ran at once` };
}
