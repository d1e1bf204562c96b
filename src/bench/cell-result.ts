import type {
  CellIntervals,
  ClientQueue,
  DecodeCell,
  ServerError,
  ServerSample,
  StreamBatchingResult,
} from '../results/schema.js';
import { streamBatching, type StreamBatching } from '../stats/batching.js';
import type { Interval } from '../stats/interval.js';
import { median, sortSamples } from '../stats/sorted.js';
import type { ClientQueueEvidence, QueueReference } from '../stats/queue.js';
import { avgPending, firstTokenWaitsMs } from '../stats/waits.js';
import { windowFigures, type MeasureWindow, type TimedRequest } from '../stats/window.js';
import { serverCellFigures } from '../target/cell-figures.js';
import { decideStatus } from '../stats/status.js';
import { windowRequestSamples } from '../stats/slo.js';

export interface CellRequest extends TimedRequest {
  serverError?: { message: string; status?: number }; // what the server said where it answered with an error
  promptTokens?: number;
  cachedTokens?: number;
  // sent again after its reused connection closed unanswered (src/client/transport/h1-request.ts)
  resent?: { firstSentAtMs: number; reason: string };
}

export interface CellMeasurement {
  contextTokens: number;
  concurrency: number;
  window: MeasureWindow;
  requests: readonly CellRequest[]; // sent in the ramp and during the window
  samples: readonly ServerSample[];
  rampTimedOut: boolean;
  errorLimitHit: boolean;
  queueReference: QueueReference | null; // unqueued TTFT of this context, from its lower-concurrency cells
  failedBy?: string; // a part of the client was lost (an agent, docs/distributed.md): the cell cannot stand
  // The client's own state over the window (src/client/self-check.ts): a late loop reads in bursts too.
  client?: { loopDelayTimeP50Ms: number; saturated: boolean };
}

const r1 = (x: number | null): number | null => (x === null ? null : Math.round(x * 10) / 10);
export const r3 = (x: number | null): number | null => (x === null ? null : Math.round(x * 1000) / 1000);
const q3 = (q: { p50: number | null; p90: number | null; p99: number | null }) => ({
  p50: r3(q.p50),
  p90: r3(q.p90),
  p99: r3(q.p99),
});

export const ri = (i: Interval | null | undefined) => (i ? { lo: r3(i.lo)!, hi: r3(i.hi)! } : null);
const roundIntervals = (i: CellIntervals): CellIntervals => ({
  totalTokensPerS: ri(i.totalTokensPerS),
  perRequestTokensPerS: ri(i.perRequestTokensPerS),
  ttftMs: ri(i.ttftMs),
  tbtMs: ri(i.tbtMs),
});
const roundQueue = (q: ClientQueueEvidence): ClientQueue => ({
  ...q,
  referenceTtftMs: r3(q.referenceTtftMs)!,
  avgPastReference: r3(q.avgPastReference)!,
  avgStreaming: r3(q.avgStreaming)!,
  nearPeakShare: r3(q.nearPeakShare)!,
  maxWaitMs: r3(q.maxWaitMs)!,
});

const roundBatching = (b: StreamBatching): StreamBatchingResult => ({
  ...b,
  eventsPerRead: r3(b.eventsPerRead)!,
  eventsPerStep: r3(b.eventsPerStep)!,
  firstHeldShare: r3(b.firstHeldShare)!,
  heldMs: r3(b.heldMs),
});

// The server's own words, as it answered the requests it failed: a few distinct messages, most frequent first.
const SERVER_ERRORS_KEPT = 5;
const SERVER_ERROR_CHARS = 300;
export function serverErrorsOf(requests: readonly CellRequest[]): ServerError[] {
  const byMessage = new Map<string, ServerError>();
  for (const r of requests) {
    if (r.ok || !r.serverError || !r.errorKind) continue;
    const message = r.serverError.message.slice(0, SERVER_ERROR_CHARS);
    const seen = byMessage.get(message);
    if (seen) seen.count += 1;
    else
      byMessage.set(message, {
        message,
        count: 1,
        kind: r.errorKind,
        ...(r.serverError.status !== undefined ? { status: r.serverError.status } : {}),
      });
  }
  return [...byMessage.values()].sort((a, b) => b.count - a.count).slice(0, SERVER_ERRORS_KEPT);
}

// Pure: one measured cell's records -> its figures and status (docs/method.md "Figures of a cell").
// Figures are stored unrounded to 1e-3 so that a recomputation from requests.jsonl matches.
export function buildDecodeCell(m: CellMeasurement): DecodeCell {
  const f = windowFigures(m.requests, m.window);
  const waits = firstTokenWaitsMs(m.requests, m.window);
  // Server-side figures of the window (queue depth, speculation, prefix cache, power) come from one place.
  const server = serverCellFigures(m.samples, { measuredS: f.measuredS, outputTokens: f.outputTokens });
  // Before the status: a stream held on the way moves the first tokens the client-timeline queue signal reads.
  const batching = streamBatching(m.requests, {
    ...(m.client ? { loopDelayTimeP50Ms: m.client.loopDelayTimeP50Ms, clientBound: m.client.saturated } : {}),
    specAcceptanceLength: server.specAcceptanceLength ?? null,
  });
  const decision = decideStatus({
    concurrency: m.concurrency,
    figures: f,
    requests: m.requests,
    window: m.window,
    queueReference: m.queueReference,
    samples: m.samples,
    errorLimitHit: m.errorLimitHit,
    ...(m.failedBy ? { failedBy: m.failedBy } : {}),
    streamHeld: batching.batched,
  });
  const measured = decision.status !== 'Failed';
  const cell: DecodeCell = {
    contextTokens: m.contextTokens,
    concurrency: m.concurrency,
    status: decision.status,
    ...measuredRates(f, measured),
    measuredS: r3(f.measuredS),
    ttft: q3(f.ttft),
    chunkGapMs: q3(f.chunkGapMs),
    perRequestTokensPerSQ: q3(f.perRequestTokensPerSQ),
    requestsSent: f.requestsSent,
    errors: f.errors,
    cacheHitRatio: r3(cacheHitRatioOf(m.requests, server.cacheHitRatio)),
    specAcceptanceLength: r3(server.specAcceptanceLength ?? null),
    serverSamples: [...m.samples],
    queueEvidence: decision.evidence,
    maxRunning: server.maxRunning ?? null,
    maxWaiting: server.maxWaiting ?? null,
    windowOpenMs: m.window.openMs,
    windowCloseMs: m.window.closeMs,
    rampTimedOut: m.rampTimedOut,
    abortedAtClose: f.abortedAtClose,
    avgPending: r3(avgPending(m.requests, m.window)),
    maxFirstTokenWaitMs: waits.length ? r1(Math.max(...waits)) : null,
  };
  addPower(cell, server, measured);
  const prompt = median(
    sortSamples(m.requests.map((r) => r.promptTokens).filter((v): v is number => v !== undefined)),
  );
  if (prompt !== null) cell.promptTokens = Math.round(prompt);
  if (measured) addMeasuredDetail(cell, f, m);
  const serverErrors = serverErrorsOf(m.requests);
  if (serverErrors.length) cell.serverErrors = serverErrors;
  if (decision.clientQueue) cell.clientQueue = roundQueue(decision.clientQueue);
  if (measured && batching.requests > 0) cell.streamBatching = roundBatching(batching);
  const staleReconnects = m.requests.filter((r) => r.resent).length;
  if (staleReconnects > 0) cell.staleReconnects = staleReconnects;
  if (decision.error) cell.error = decision.error;
  return cell;
}

type WindowFigures = ReturnType<typeof windowFigures>;

// A failed cell has no rates: its window's figures do not stand.
function measuredRates(f: WindowFigures, measured: boolean) {
  return {
    totalTokensPerS: measured ? r3(f.totalTokensPerS) : null,
    perRequestTokensPerS: measured ? r3(f.perRequestTokensPerS) : null,
    ttftMs: measured ? r3(f.ttftMs) : null,
    tbtMs: measured ? r3(f.tbtMs) : null,
    avgActive: measured ? r3(f.avgActive) : null,
    completed: measured ? f.completed : null,
    outputTokens: measured ? f.outputTokens : null,
  };
}

// Usage's cached_tokens counts this cell's requests only; the server's counters are the fallback.
function cacheHitRatioOf(
  requests: readonly CellRequest[],
  serverRatio: number | null | undefined,
): number | null {
  let promptSum = 0;
  let cachedSum = 0;
  let withCache = 0;
  for (const r of requests)
    if (r.promptTokens !== undefined && r.cachedTokens !== undefined) {
      promptSum += r.promptTokens;
      cachedSum += r.cachedTokens;
      withCache += 1;
    }
  return withCache > 0 && promptSum > 0 ? Math.min(1, cachedSum / promptSum) : (serverRatio ?? null);
}

// Power only where a power reading exists and the cell was measured: no reading is no figure, not 0 W.
function addPower(cell: DecodeCell, server: ReturnType<typeof serverCellFigures>, measured: boolean): void {
  if (typeof server.avgPowerW !== 'number' || !measured) return;
  cell.avgPowerW = r3(server.avgPowerW);
  cell.joulesPerToken = r3(server.joulesPerToken ?? null);
  cell.tokensPerSPerW = r3(server.tokensPerSPerW ?? null);
}

// A measured cell's intervals, stalls and the requests of its window.
function addMeasuredDetail(cell: DecodeCell, f: WindowFigures, m: CellMeasurement): void {
  cell.intervals = roundIntervals(f.intervals);
  cell.maxChunkGapMs = r3(f.stalls.maxGapMs);
  cell.stalls = f.stalls.count;
  cell.stalledMs = r3(f.stalls.totalMs)!;
  // What any service level needs, so `report --slo` judges this cell again without the request log.
  cell.windowRequests = windowRequestSamples(m.requests, m.window);
}
