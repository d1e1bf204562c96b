import type { MeasureWindow, TimedRequest } from './window.js';

// "Requests queued" read from the client's own timeline (docs/method.md "Status of a cell";
// "Queueing without server metrics"), whatever share of the N requests queues. A server with S < N slots shows
// a ceiling: never all N stream at once, and the streaming count sits at S while the rest wait. A server that
// runs all N but prefills slowly lets the count move freely and reach N between prefills. The waits are checked
// against an unqueued first token from outside the cell (the same context's lower-concurrency Valid cells, else
// the fastest first token the cell saw), never the cell's own median TTFT, itself a queue wait once half queue.

export const QUEUE_PEAK_SLACK_DIVISOR = 8; // "at the ceiling": within peak / 8 requests of the peak ...
export const QUEUE_MIN_NEAR_PEAK_SHARE = 0.5; // ... for at least half the window ...
export const QUEUE_MIN_AVG_QUEUED = 0.25; // ... while on average a quarter of a request waited past an unqueued TTFT

export interface QueueReference {
  ttftMs: number;
  from: string; // words: which measurement gave the unqueued TTFT
}

export interface ClientQueueInput {
  concurrency: number;
  requests: readonly TimedRequest[];
  window: MeasureWindow;
  reference: QueueReference | null; // from lower-concurrency Valid cells of the same context
}

export interface ClientQueueEvidence {
  queued: boolean;
  referenceTtftMs: number;
  referenceFrom: string;
  avgPastReference: number; // time-average of requests waiting longer than the unqueued TTFT
  avgStreaming: number; // time-average of requests between first token and end
  peakStreaming: number; // the most requests streaming at once in the window
  nearPeakShare: number; // share of the window with the streaming count near that peak
  maxWaitMs: number; // the longest wait for a first token seen in the window
}

// The fastest first token of the cell, ramp included: the first request of a ramp meets an idle server.
export function fastestTtftReference(requests: readonly TimedRequest[]): QueueReference | null {
  let best = Infinity;
  for (const r of requests)
    if (r.firstTokenAtMs !== undefined) best = Math.min(best, r.firstTokenAtMs - r.sentAtMs);
  return Number.isFinite(best) ? { ttftMs: best, from: 'the fastest first token of this cell' } : null;
}

// Waits end at the first token, at the end of a request that never got one, or at the window close.
function waitEndMs(r: TimedRequest, closeMs: number): number {
  return Math.min(r.firstTokenAtMs ?? r.endAtMs, r.endAtMs, closeMs);
}

interface StreamingProfile {
  avg: number;
  peak: number;
  nearPeakShare: number; // share of the window with at least peak - slack requests streaming
}

// How many requests streamed tokens at once over the window (first token to end), by a sweep over their edges.
function streamingProfile(requests: readonly TimedRequest[], w: MeasureWindow): StreamingProfile {
  const edges: Array<[number, number]> = [];
  let atOpen = 0;
  for (const r of requests) {
    if (r.firstTokenAtMs === undefined) continue;
    const s = Math.max(r.firstTokenAtMs, w.openMs);
    const e = Math.min(r.endAtMs, w.closeMs);
    if (e <= s) continue;
    if (s === w.openMs) atOpen += 1;
    else edges.push([s, 1]);
    if (e < w.closeMs) edges.push([e, -1]);
  }
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const spans: Array<[number, number]> = []; // [count, duration]
  let count = atOpen;
  let peak = atOpen;
  let t = w.openMs;
  let area = 0;
  for (const [at, d] of edges) {
    spans.push([count, at - t]);
    area += count * (at - t);
    t = at;
    count += d;
    peak = Math.max(peak, count);
  }
  spans.push([count, w.closeMs - t]);
  area += count * (w.closeMs - t);
  const length = w.closeMs - w.openMs;
  const slack = Math.floor(peak / QUEUE_PEAK_SLACK_DIVISOR);
  let near = 0;
  for (const [c, d] of spans) if (c >= peak - slack) near += d;
  return { avg: area / length, peak, nearPeakShare: near / length };
}

// Time-average number of requests waiting for a first token past `afterMs` of waiting.
function avgWaitingPast(requests: readonly TimedRequest[], w: MeasureWindow, afterMs: number): number {
  let ms = 0;
  for (const r of requests) {
    if (r.sentAtMs >= w.closeMs) continue;
    const from = Math.max(r.sentAtMs + afterMs, w.openMs);
    const end = waitEndMs(r, w.closeMs);
    if (end > from) ms += end - from;
  }
  return ms / (w.closeMs - w.openMs);
}

export function clientQueueEvidence(input: ClientQueueInput): ClientQueueEvidence | null {
  const { window: w, requests } = input;
  const lengthMs = w.closeMs - w.openMs;
  const reference = input.reference ?? fastestTtftReference(requests);
  if (lengthMs <= 0 || reference === null) return null;
  let maxWaitMs = 0;
  for (const r of requests) {
    const end = waitEndMs(r, w.closeMs);
    if (r.sentAtMs < w.closeMs && end > w.openMs) maxWaitMs = Math.max(maxWaitMs, end - r.sentAtMs);
  }
  const streaming = streamingProfile(requests, w);
  const avgPastReference = avgWaitingPast(requests, w, reference.ttftMs);
  return {
    // A full server: never all N streaming, the streaming count pinned near its ceiling, and requests waiting
    // beyond an unqueued first token meanwhile. Slow prefill alone lets the count reach N between prefills.
    queued:
      streaming.peak < input.concurrency &&
      streaming.nearPeakShare >= QUEUE_MIN_NEAR_PEAK_SHARE &&
      avgPastReference >= QUEUE_MIN_AVG_QUEUED,
    referenceTtftMs: reference.ttftMs,
    referenceFrom: reference.from,
    avgPastReference,
    avgStreaming: streaming.avg,
    peakStreaming: streaming.peak,
    nearPeakShare: streaming.nearPeakShare,
    maxWaitMs,
  };
}

export const ms = (x: number): string => `${Math.round(x).toLocaleString('en-US')} ms`; // stats/ reads no format/
const pct = (x: number): string => `${Math.round(100 * x)}%`;

export function describeClientQueue(e: ClientQueueEvidence, concurrency: number): string {
  const head = e.queued
    ? `at most ${e.peakStreaming} of ${concurrency} requests streamed at once (${pct(e.nearPeakShare)} of the window at that ceiling) while on average ${e.avgPastReference.toFixed(1)} waited longer than an unqueued first token`
    : e.peakStreaming >= concurrency
      ? `all ${concurrency} requests streamed at once (client timeline)`
      : `at most ${e.peakStreaming} of ${concurrency} streamed at once, but the count moved freely (${pct(e.nearPeakShare)} of the window near it) and ${e.avgPastReference.toFixed(1)} waited past an unqueued first token on average: slow prefill, not a queue`;
  return `${head} (unqueued TTFT ${ms(e.referenceTtftMs)} from ${e.referenceFrom}; longest wait ${ms(e.maxWaitMs)})`;
}

export interface ReferenceCell {
  contextTokens: number;
  concurrency: number;
  status: string;
  ttftMs?: number | null;
}

// The unqueued TTFT of a context: the median TTFT of its highest lower-concurrency Valid cell, the nearest load
// that ran without a queue.
export function referenceFromCells(
  cells: readonly ReferenceCell[],
  contextTokens: number,
  concurrency: number,
): QueueReference | null {
  let best: ReferenceCell | undefined;
  for (const c of cells) {
    if (c.contextTokens !== contextTokens || c.concurrency >= concurrency || c.status !== 'Valid') continue;
    if (typeof c.ttftMs !== 'number') continue;
    if (!best || c.concurrency > best.concurrency) best = c;
  }
  return best ? { ttftMs: best.ttftMs!, from: `the ×${best.concurrency} cell's median` } : null;
}
