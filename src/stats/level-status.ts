import type { LevelStatus, LoadLevel, ServerSample } from '../results/schema.js';
import { levelFigures, type LevelFigures, type LevelInput, type LevelRequest } from './level.js';
import {
  clientQueueEvidence,
  QUEUE_MIN_AVG_QUEUED,
  type ClientQueueEvidence,
  type QueueReference,
} from './queue.js';
import { failedStatus, waitingGauge } from './status.js';
import type { MeasureWindow } from './window.js';

// The status of a load level (docs/method.md "Status of a load level"), decided in this order: Failed by the
// cell's rules over the window's arrivals; Client-bound when the client trailed its schedule (not judged: its
// timings are partly the client's own); Requests queued by the server's waiting gauge (the cell's rule), the
// client timeline of an open loop, or arrivals held at the in-flight cap; Valid otherwise.

export interface LevelStatusInput {
  figures: LevelFigures;
  requests: readonly LevelRequest[]; // every request of the level
  window: MeasureWindow;
  samples: readonly ServerSample[];
  reference: QueueReference | null; // an unqueued TTFT from the send (referenceFromLevels), else the level's fastest
  maxInFlight?: number | undefined;
  errorLimitHit?: boolean;
  failedBy?: string | undefined; // the client lost a part of itself (an agent)
}

export interface LevelStatusDecision {
  status: LevelStatus;
  evidence: string;
  error?: string;
  clientQueue?: ClientQueueEvidence;
  waitingGauge?: string;
}

const ms = (x: number): string => `${(Math.round(x * 10) / 10).toLocaleString('en-US')} ms`;
const pct = (x: number): string => `${Math.round(100 * x)}%`;

// An open loop has no N: the client timeline's sign of a full server is the streaming count pinned at a ceiling it
// reached by itself, while requests wait past an unqueued first token (src/stats/queue.ts, with no N to stay under).
export function openLoopQueue(
  requests: readonly LevelRequest[],
  window: MeasureWindow,
  reference: QueueReference | null,
): ClientQueueEvidence | undefined {
  const e = clientQueueEvidence({ concurrency: Number.POSITIVE_INFINITY, requests, window, reference });
  if (!e) return undefined;
  // No request streaming in the window is no ceiling: a prefill longer than the window, not a full server.
  return e.peakStreaming === 0 ? { ...e, queued: false } : e;
}

export function describeOpenLoopQueue(e: ClientQueueEvidence): string {
  const head = e.queued
    ? `requests streamed at a ceiling of ${e.peakStreaming} for ${pct(e.nearPeakShare)} of the window while on average ${e.avgPastReference.toFixed(1)} waited longer than an unqueued first token`
    : `at most ${e.peakStreaming} requests streamed at once (${pct(e.nearPeakShare)} of the window near it) and ${e.avgPastReference.toFixed(1)} waited past an unqueued first token on average: no queue`;
  return `${head} (unqueued TTFT ${ms(e.referenceTtftMs)} from ${e.referenceFrom}; longest wait ${ms(e.maxWaitMs)})`;
}

export function decideLevelStatus(input: LevelStatusInput): LevelStatusDecision {
  const f = input.figures;
  if (f.requests.arrived === 0 && !input.failedBy)
    return {
      status: 'Failed',
      evidence: 'no request was scheduled in the window',
      error: 'no arrivals in the window: the rate times the duration is under one request (raise --duration)',
    };
  // The window's arrivals run past the close (the drain): their tokens count however late, not only those inside.
  const failed = failedStatus({
    figures: { errors: f.errors, outputTokens: f.arrivalTokens, requestsSent: f.requests.arrived },
    errorLimitHit: input.errorLimitHit ?? false,
    failedBy: input.failedBy,
  });
  if (failed) return failed;
  const lag = f.lag;
  if (lag.p99Ms !== null && lag.p99Ms > lag.limitMs)
    return {
      status: 'Client-bound',
      evidence:
        `the client sent its requests up to ${ms(lag.maxMs ?? lag.p99Ms)} behind their schedule (p99 ${ms(lag.p99Ms)}, ` +
        `past ${ms(lag.limitMs)}): the timings are partly the client's own, so the level is not judged`,
    };
  const reasons: string[] = [];
  const gauge = waitingGauge(input.samples);
  if (gauge) reasons.push(gauge);
  const clientQueue = openLoopQueue(input.requests, input.window, input.reference);
  if (clientQueue?.queued) reasons.push(describeOpenLoopQueue(clientQueue));
  const cap = f.inFlightCap;
  if (cap && cap.avgWaiting >= QUEUE_MIN_AVG_QUEUED)
    reasons.push(
      `on average ${cap.avgWaiting.toFixed(1)} arrivals waited at the in-flight cap${input.maxInFlight ? ` of ${input.maxInFlight}` : ''} (p99 ${ms(cap.p99Ms ?? 0)})`,
    );
  const extra = { ...(clientQueue ? { clientQueue } : {}), ...(gauge ? { waitingGauge: gauge } : {}) };
  if (reasons.length) return { status: 'Requests queued', evidence: reasons.join('; '), ...extra };
  return {
    status: 'Valid',
    evidence: clientQueue ? describeOpenLoopQueue(clientQueue) : 'no queue seen',
    ...extra,
  };
}

export interface LevelRef {
  row: string;
  load: LoadLevel['load'];
  status: string;
  ttftFromSendMs: { p50: number | null };
}

// The unqueued TTFT of an open level: the median TTFT from the send of the same row's highest lower-rate Valid
// level, the nearest load that ran without a queue (as referenceFromCells for a cell).
export function referenceFromLevels(
  levels: readonly LevelRef[],
  row: string,
  rate: number,
): QueueReference | null {
  let best: { rate: number; ttft: number } | undefined;
  for (const l of levels) {
    if (l.row !== row || l.load.model !== 'open' || l.load.rate >= rate || l.status !== 'Valid') continue;
    const ttft = l.ttftFromSendMs.p50;
    if (ttft === null) continue;
    if (!best || l.load.rate > best.rate) best = { rate: l.load.rate, ttft };
  }
  return best ? { ttftMs: best.ttft, from: `the ${best.rate} req/s level's median` } : null;
}

export interface MeasureLevelInput extends LevelInput {
  row: string;
  key: string; // levelKey(row, load)
  load: LoadLevel['load'];
  reference?: QueueReference | null;
  errorLimitHit?: boolean;
  failedBy?: string;
  drainEndMs?: number;
}

/** A load level as the result stores it, from its requests and window (the runner adds client, agents, times). */
export function measureLevel(input: MeasureLevelInput): LoadLevel {
  const f = levelFigures({ ...input, closed: input.load.model === 'closed' });
  const samples = input.samples ?? [];
  const d = decideLevelStatus({
    figures: f,
    requests: input.requests,
    window: input.window,
    samples,
    reference: input.reference ?? null,
    maxInFlight: input.load.model === 'open' ? input.load.maxInFlight : undefined,
    ...(input.errorLimitHit ? { errorLimitHit: true } : {}),
    failedBy: input.failedBy,
  });
  const waiting = samples.map((s) => s.waiting).filter((v): v is number => typeof v === 'number');
  const queue = {
    ...(d.clientQueue ? { clientQueue: d.clientQueue } : {}),
    ...(d.waitingGauge ? { waitingGauge: d.waitingGauge } : {}),
    ...(waiting.length ? { maxWaiting: Math.max(...waiting) } : {}),
    ...(f.inFlightCap ? { inFlightCap: f.inFlightCap } : {}),
  };
  const errors = Object.keys(f.errors).length ? { errors: f.errors } : {};
  return {
    row: input.row,
    key: input.key,
    load: input.load,
    status: d.status,
    evidence: d.evidence,
    ...(d.error ? { error: d.error } : {}),
    windowOpenMs: input.window.openMs,
    windowCloseMs: input.window.closeMs,
    ...(input.drainEndMs !== undefined ? { drainEndMs: input.drainEndMs } : {}),
    requests: f.requests,
    offeredRate: f.offeredRate,
    achievedRate: f.achievedRate,
    goodput: f.goodput,
    sloShare: f.slo.share,
    sloShareInterval: f.slo.interval,
    ttftMs: f.ttftMs,
    ttftFromSendMs: f.ttftFromSendMs,
    itlMs: f.itlMs,
    e2eMs: f.e2eMs,
    outputTokens: f.outputTokens,
    totalTokensPerS: f.totalTokensPerS,
    totalTokensPerSInterval: f.totalTokensPerSInterval,
    perRequestTokensPerS: f.perRequestTokensPerS,
    ...(Object.keys(queue).length ? { queue } : {}),
    cache: f.cache,
    lag: f.lag,
    ...(samples.length ? { serverSamples: [...samples] } : {}),
    ...errors,
    windowRequests: f.windowRequests,
  };
}
