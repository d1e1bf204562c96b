import type { CellStatus, ServerSample } from '../results/schema.js';
import {
  clientQueueEvidence,
  describeClientQueue,
  ms,
  type ClientQueueEvidence,
  type QueueReference,
} from './queue.js';
import { median, sortSamples } from './sorted.js';
import type { MeasureWindow, TimedRequest, WindowFigures } from './window.js';

// Thresholds the method leaves to us (docs/method.md "Status of a cell").
export const QUEUE_WAITING_SAMPLE_FRACTION = 0.5; // metrics: waiting > 0 in at least half the window samples (re-sends wait a step)
export const RUNNING_MIN_SAMPLES = 3; // metrics: the running gauge judges a seat limit from 3 samples up
// metrics: the waiting gauge is a re-send's wait, not a queue, where every first token came within this many steps
// of an unqueued one: the step in progress, and the step it joins (docs/method.md "The waiting gauge")
export const RESEND_WAIT_STEPS = 2;
export const FAIL_ERROR_FRACTION = 0.1; // Failed when errors reach 10% of the requests sent ...
export const FAIL_ERROR_MIN = 2; // ... and at least 2

export interface StatusInput {
  concurrency: number;
  figures: WindowFigures;
  requests: readonly TimedRequest[];
  window: MeasureWindow;
  queueReference: QueueReference | null; // unqueued TTFT of this context (src/stats/queue.ts)
  samples: readonly ServerSample[];
  errorLimitHit: boolean;
  failedBy?: string; // the client lost a part of itself (an agent): whatever the figures, the cell is Failed
  streamHeld?: boolean; // held back between client and server (src/stats/batching.ts): first tokens are late
}

export interface StatusDecision {
  status: CellStatus;
  evidence: string; // words for the report: why this status
  error?: string;
  clientQueue?: ClientQueueEvidence; // the client-timeline evidence, whatever the status
}

// The running gauge shows a seat limit S < N only if it never read N: a server cannot run more than its seats. A
// sample between steps also catches requests in their re-send gap (between one answer and the next request
// reaching the engine), so a median below N alone is not a limit: short answers at N = 32 read 32, 20, 23, 24.
// Likewise the client cannot see more requests streaming at once than the server has seats.
function runningSeatLimit(
  samples: readonly ServerSample[],
  n: number,
  avgActive: number | null,
  client: ClientQueueEvidence | undefined, // undefined where the client timeline cannot tell (a held stream)
): string | undefined {
  const running = sortSamples(
    samples.map((s) => s.running).filter((v): v is number => typeof v === 'number'),
  );
  const med = median(running);
  if (med === null || running.length < RUNNING_MIN_SAMPLES) return undefined;
  const most = running[running.length - 1]!;
  if (most >= n || med >= n - 0.5 || avgActive === null || avgActive >= n - 0.5) return undefined;
  if (client && client.peakStreaming >= n) return undefined;
  return `server ran a median of ${med} requests (at most ${most} in ${running.length} samples) and the client saw ${avgActive.toFixed(1)} active, of ${n}`;
}

// A request sent to a busy engine waits for the step in progress before it joins the batch, and the gauge counts it
// meanwhile: with 100 ms steps and short answers, half the samples catch one. That is no queue where the client saw
// all N streaming at once and no first token came later than RESEND_WAIT_STEPS steps (the cell's median gap between
// chunks) past an unqueued first token. Returns the step where that holds.
function resendStepMs(
  f: WindowFigures,
  n: number,
  client: ClientQueueEvidence | undefined, // undefined where the client timeline cannot tell (a held stream)
): number | undefined {
  const step = f.chunkGapMs.p50;
  if (!client || client.peakStreaming < n || step === null || !(step > 0)) return undefined;
  return client.maxWaitMs <= client.referenceTtftMs + RESEND_WAIT_STEPS * step ? step : undefined;
}

export function errorCount(f: Pick<WindowFigures, 'errors'>): number {
  return Object.values(f.errors).reduce((a, b) => a + (b ?? 0), 0);
}

// What the Failed rules read: the errors of the requests sent (aborts at the close are not among them), the tokens
// that arrived in the window, and how the measurement itself ended.
export interface FailureInput {
  figures: Pick<WindowFigures, 'errors' | 'outputTokens' | 'requestsSent'>;
  errorLimitHit: boolean;
  failedBy?: string | undefined;
}

/** Failed, and why, when the failure rules say so (docs/method.md "Status of a cell"); undefined otherwise. A load
 * level is judged by the same rules over its window arrivals (src/stats/level-status.ts). */
export function failedStatus(input: FailureInput): (StatusDecision & { status: 'Failed' }) | undefined {
  const f = input.figures;
  const errors = errorCount(f);
  const errorText = Object.entries(f.errors)
    .map(([k, v]) => `${v} ${k}`)
    .join(', ');
  if (input.failedBy) return { status: 'Failed', evidence: input.failedBy, error: input.failedBy };
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
  return undefined;
}

/** The waiting gauge in words where it reads a queue: waiting > 0 in at least half the window's samples. */
export function waitingGauge(samples: readonly ServerSample[]): string | undefined {
  const waiting = samples.filter((s) => typeof s.waiting === 'number');
  if (waiting.length === 0) return undefined;
  const withWaiting = waiting.filter((s) => (s.waiting ?? 0) > 0).length;
  if (withWaiting / waiting.length < QUEUE_WAITING_SAMPLE_FRACTION) return undefined;
  const maxW = Math.max(...waiting.map((s) => s.waiting ?? 0));
  return `server metrics showed waiting requests in ${withWaiting} of ${waiting.length} samples (max ${maxW})`;
}

export function decideStatus(input: StatusInput): StatusDecision {
  const { figures: f, concurrency: n } = input;
  const failed = failedStatus(input);
  if (failed) return failed;

  // The client's own timeline decides where metrics are missing, and also catches a queue in front of the
  // server (a gateway) that the server's metrics cannot see.
  const clientQueue =
    clientQueueEvidence({
      concurrency: n,
      requests: input.requests,
      window: input.window,
      reference: input.queueReference,
    }) ?? undefined;
  const client = input.streamHeld ? undefined : clientQueue;
  const reasons: string[] = [];
  const waiting = waitingGauge(input.samples);
  const resendStep = waiting ? resendStepMs(f, n, client) : undefined;
  if (waiting && resendStep === undefined) reasons.push(waiting);
  const seatLimit = runningSeatLimit(input.samples, n, f.avgActive, client);
  if (seatLimit) reasons.push(seatLimit);
  // A stream held on the way delivers first tokens late: a request looks like it waited though it streamed.
  const heldNote = 'the client timeline cannot tell: the stream was held back between client and server';
  if (clientQueue?.queued && !input.streamHeld) reasons.push(describeClientQueue(clientQueue, n));
  const extra = clientQueue ? { clientQueue } : {};
  if (reasons.length > 0) return { status: 'Requests queued', evidence: reasons.join('; '), ...extra };
  if (waiting && resendStep !== undefined)
    return {
      status: 'Valid',
      evidence:
        `${waiting}, re-sent requests waiting for the next step: ${describeClientQueue(clientQueue!, n)}, ` +
        `no first token later than ${RESEND_WAIT_STEPS} steps of ${ms(resendStep)} past the unqueued one`,
      ...extra,
    };
  return {
    status: 'Valid',
    evidence:
      clientQueue?.queued && input.streamHeld
        ? heldNote
        : clientQueue
          ? describeClientQueue(clientQueue, n)
          : `all ${n} requests ran at once`,
    ...extra,
  };
}
