import type {
  ClientLag,
  ErrorKind,
  InFlightCapWait,
  Interval,
  LevelCache,
  LevelQuantiles,
  LevelRequestCounts,
  ServerSample,
  ServiceLevel,
  WindowRequests,
} from '../results/schema.js';
import { quantileInterval, totalRateInterval } from './interval.js';
import { judgeRequests, type ShareJudgement } from './slo.js';
import { quantile, sortSamples } from './sorted.js';
import type { MeasureWindow, TimedRequest } from './window.js';

// The figures of a load level (docs/workloads.md "Figures of a load level"): an open loop's rate, a trace's
// schedule, or a closed loop over a workload other than the fixed one, measured over the requests *scheduled* in
// the window. Pure: the runner hands in every request of the level (warm-up arrivals too: their tokens and
// completions inside the window count for the window's rates) and the window.

export interface LevelRequest extends TimedRequest {
  scheduledAtMs?: number; // epoch ms the schedule said; absent (a closed loop: when its session was free): the send
  releasedAtMs?: number; // the in-flight cap let it go (--max-in-flight); absent without a cap
  promptTokens?: number;
  cachedTokens?: number; // server-reported prompt tokens served from its prefix cache
  cacheableTokens?: number; // prompt tokens the workload made cacheable
}

export const scheduledAt = (r: LevelRequest): number => r.scheduledAtMs ?? r.sentAtMs;

/** The window's own requests: those scheduled in [open, close). */
export const windowArrivals = <R extends LevelRequest>(requests: readonly R[], w: MeasureWindow): R[] =>
  requests.filter((r) => scheduledAt(r) >= w.openMs && scheduledAt(r) < w.closeMs);

// A request aborted at the drain timeout (or never ended) is unfinished, one that ended with any other error failed.
const failedKind = (r: LevelRequest): ErrorKind | undefined =>
  !r.ok && r.errorKind !== undefined && r.errorKind !== 'aborted' ? r.errorKind : undefined;
const unfinished = (r: LevelRequest): boolean => !r.ok && failedKind(r) === undefined;

interface Stream {
  rate: number; // tokens after the first chunk / span, per s
  itlMs: number; // its inverse: span / tokens after the first chunk
}

// A request's decode over its whole stream, first chunk to last; none under two chunks.
export function streamRate(r: TimedRequest): Stream | undefined {
  const c = r.chunks;
  if (c.length < 2) return undefined;
  let tokens = 0;
  for (const [, n] of c) tokens += n;
  const after = tokens - c[0]![1];
  const span = c[c.length - 1]![0] - c[0]![0];
  if (!(span > 0) || after <= 0) return undefined;
  return { rate: (after * 1000) / span, itlMs: span / after };
}

/** p50, p90, p99 and their exact-rank 95% intervals. */
export function levelQuantiles(values: readonly number[]): LevelQuantiles {
  const s = sortSamples(values);
  return {
    n: s.length,
    p50: quantile(s, 0.5),
    p90: quantile(s, 0.9),
    p99: quantile(s, 0.99),
    intervals: {
      p50: quantileInterval(s, 0.5),
      p90: quantileInterval(s, 0.9),
      p99: quantileInterval(s, 0.99),
    },
  };
}

// The client may trail its schedule by this much before a level's timings are partly its own (docs/workloads.md
// "The client's lag"): 10 ms, or a tenth of the mean gap between arrivals where that is longer.
export const CLIENT_LAG_MIN_MS = 10;
export const CLIENT_LAG_GAP_SHARE = 0.1;
export const clientLagLimitMs = (meanGapMs: number): number =>
  Math.max(CLIENT_LAG_MIN_MS, Number.isFinite(meanGapMs) ? CLIENT_LAG_GAP_SHARE * meanGapMs : 0);

const r1 = (x: number) => Math.round(x * 10) / 10;
const r2 = (x: number) => Math.round(x * 100) / 100;

export interface LevelInput {
  requests: readonly LevelRequest[]; // every request of the level, warm-up arrivals included
  window: MeasureWindow;
  slo: ServiceLevel; // the run's service level: goodput and the share are under it
  samples?: readonly ServerSample[]; // the window's server samples (tMs since the open)
  // A closed level: the requests still running at the close are aborted there, as a decode cell's are, and judged as
  // a cell judges them (their first token and their rate until the close), not as unfinished.
  closed?: boolean;
}

export interface LevelFigures {
  requests: LevelRequestCounts;
  lengthS: number;
  meanGapMs: number; // window length / arrivals
  offeredRate: number;
  achievedRate: number;
  goodput: number | null;
  slo: ShareJudgement; // under the input's level; its verdict assumes nothing of the level's status
  ttftMs: LevelQuantiles;
  ttftFromSendMs: LevelQuantiles;
  itlMs: LevelQuantiles;
  e2eMs: LevelQuantiles;
  outputTokens: number; // arriving inside the window, any request
  arrivalTokens: number; // of the window's arrivals, however late (the drain included)
  totalTokensPerS: number | null;
  totalTokensPerSInterval: Interval | null;
  perRequestTokensPerS: LevelQuantiles;
  errors: Partial<Record<ErrorKind, number>>;
  lag: ClientLag;
  inFlightCap?: InFlightCapWait;
  cache: LevelCache;
  windowRequests: WindowRequests; // `failed` counts the unfinished too: neither met any level
}

export function levelFigures(input: LevelInput): LevelFigures {
  const w = input.window;
  const lengthMs = w.closeMs - w.openMs;
  const lengthS = lengthMs / 1000;
  const arrivals = windowArrivals(input.requests, w);
  const t = arrivalTimings(arrivals, w, input.closed === true);
  const samples = t.samples;
  const slo = judgeRequests(samples, input.slo);
  const meanGapMs = arrivals.length ? lengthMs / arrivals.length : Infinity;
  const { achieved, outputTokens } = windowOutput(input.requests, w);
  const inFlightCap = capWait(input.requests, arrivals, w);
  return {
    requests: t.requests,
    lengthS,
    meanGapMs,
    offeredRate: lengthS > 0 ? arrivals.length / lengthS : 0,
    achievedRate: lengthS > 0 ? achieved / lengthS : 0,
    goodput: lengthS > 0 && slo.judged > 0 ? slo.met / lengthS : null,
    slo,
    ttftMs: levelQuantiles(t.ttft),
    ttftFromSendMs: levelQuantiles(t.ttftSend),
    itlMs: levelQuantiles(t.itl),
    e2eMs: levelQuantiles(t.e2e),
    outputTokens,
    arrivalTokens: t.arrivalTokens,
    totalTokensPerS: lengthMs > 0 ? (outputTokens * 1000) / lengthMs : null,
    totalTokensPerSInterval: totalRateInterval(
      input.requests.flatMap((r) => r.chunks),
      w.openMs,
      w.closeMs,
    ),
    perRequestTokensPerS: levelQuantiles(t.rates),
    errors: t.errors,
    lag: clientLag(t.lags, meanGapMs),
    ...(inFlightCap ? { inFlightCap } : {}),
    cache: cacheOf(arrivals, input.samples ?? []),
    windowRequests: samples,
  };
}

// The window's arrivals, one by one: how each ended, its timings, and what any service level needs of it.
interface ArrivalTimings {
  requests: LevelRequestCounts;
  errors: Partial<Record<ErrorKind, number>>;
  ttft: number[]; // from the schedule
  ttftSend: number[]; // from the send
  itl: number[];
  rates: number[];
  e2e: number[];
  lags: number[]; // the send behind the schedule (or the cap's release)
  arrivalTokens: number;
  samples: WindowRequests;
}

function arrivalTimings(
  arrivals: readonly LevelRequest[],
  w: MeasureWindow,
  closed: boolean,
): ArrivalTimings {
  const t: ArrivalTimings = {
    requests: { arrived: arrivals.length, completed: 0, failed: 0, unfinished: 0 },
    errors: {},
    ttft: [],
    ttftSend: [],
    itl: [],
    rates: [],
    e2e: [],
    lags: [],
    arrivalTokens: 0,
    samples: { ttftMs: [], tokensPerS: [] },
  };
  let cut = 0;
  const cutAtClose = (r: LevelRequest) => closed && unfinished(r);
  for (const r of arrivals) {
    for (const [, n] of r.chunks) t.arrivalTokens += n;
    const kind = failedKind(r);
    if (kind) {
      t.requests.failed += 1;
      t.errors[kind] = (t.errors[kind] ?? 0) + 1;
    } else if (cutAtClose(r)) cut += 1;
    else if (unfinished(r)) t.requests.unfinished += 1;
    else t.requests.completed += 1;
    if (r.scheduledAtMs !== undefined) t.lags.push(r.sentAtMs - (r.releasedAtMs ?? r.scheduledAtMs));
    addTimings(t, r, w, cutAtClose(r));
  }
  if (cut) t.requests.cutAtClose = cut;
  // Unfinished requests meet no service level: they count with the failed ones.
  const notMet = t.requests.failed + t.requests.unfinished;
  if (notMet) t.samples.failed = notMet;
  return t;
}

// One arrival's stream, first token and end; a request cut at the close by what it had by then.
function addTimings(t: ArrivalTimings, r: LevelRequest, w: MeasureWindow, cut: boolean): void {
  const at = scheduledAt(r);
  const samples = t.samples;
  const stream = streamRate(r);
  if (stream) {
    t.rates.push(stream.rate);
    t.itl.push(stream.itlMs);
  }
  if (r.firstTokenAtMs !== undefined) {
    t.ttft.push(r.firstTokenAtMs - at);
    t.ttftSend.push(r.firstTokenAtMs - r.sentAtMs);
  }
  if (cut) {
    // windowRequestSamples' rule for a cell's request cut at the close (src/stats/slo.ts).
    if (r.firstTokenAtMs !== undefined && r.firstTokenAtMs < w.closeMs) {
      samples.ttftMs.push(r1(r.firstTokenAtMs - at));
      samples.tokensPerS.push(stream ? r2(stream.rate) : null);
    } else (samples.waitedMs ??= []).push(r1(Math.max(0, Math.min(r.endAtMs, w.closeMs) - at)));
  }
  if (!r.ok) return;
  t.e2e.push(r.endAtMs - at);
  // What any service level needs of it, as a cell keeps it (src/stats/slo.ts): the user's wait and its rate.
  samples.ttftMs.push(r1((r.firstTokenAtMs ?? r.endAtMs) - at));
  samples.tokensPerS.push(stream ? r2(stream.rate) : null);
}

// Completions and tokens inside the window, of any request: warm-up arrivals' too.
function windowOutput(
  requests: readonly LevelRequest[],
  w: MeasureWindow,
): { achieved: number; outputTokens: number } {
  let achieved = 0;
  let outputTokens = 0;
  for (const r of requests) {
    if (r.ok && r.endAtMs >= w.openMs && r.endAtMs < w.closeMs) achieved += 1;
    for (const [t, n] of r.chunks) if (t >= w.openMs && t < w.closeMs && n > 0) outputTokens += n;
  }
  return { achieved, outputTokens };
}

function clientLag(lags: readonly number[], meanGapMs: number): ClientLag {
  const lagS = sortSamples(lags);
  return {
    n: lagS.length,
    p50Ms: quantile(lagS, 0.5),
    p99Ms: quantile(lagS, 0.99),
    maxMs: lagS.length ? lagS[lagS.length - 1]! : null,
    limitMs: clientLagLimitMs(meanGapMs),
  };
}

// Arrivals held at the in-flight cap: each waits from its scheduled time to its release. Undefined without a cap.
function capWait(
  all: readonly LevelRequest[],
  arrivals: readonly LevelRequest[],
  w: MeasureWindow,
): InFlightCapWait | undefined {
  if (!all.some((r) => r.releasedAtMs !== undefined)) return undefined;
  const waits = sortSamples(
    arrivals.filter((r) => r.releasedAtMs !== undefined).map((r) => r.releasedAtMs! - scheduledAt(r)),
  );
  let heldMs = 0;
  for (const r of all) {
    if (r.releasedAtMs === undefined) continue;
    const from = Math.max(scheduledAt(r), w.openMs);
    const to = Math.min(r.releasedAtMs, w.closeMs);
    if (to > from) heldMs += to - from;
  }
  return {
    waited: waits.filter((x) => x > 0).length,
    p50Ms: quantile(waits, 0.5),
    p99Ms: quantile(waits, 0.99),
    maxMs: waits.length ? waits[waits.length - 1]! : null,
    avgWaiting: w.closeMs > w.openMs ? heldMs / (w.closeMs - w.openMs) : 0,
  };
}

// Expected hits beside served ones: the server's usage where any request carried cached tokens, else the rise of
// its prefix-cache hit counter over the window's samples (every request it served then, not only the window's).
function cacheOf(arrivals: readonly LevelRequest[], samples: readonly ServerSample[]): LevelCache {
  let expected = 0;
  let served = 0;
  let reported = 0;
  let prompt = 0;
  let prompts = 0;
  for (const r of arrivals) {
    expected += r.cacheableTokens ?? 0;
    if (r.cachedTokens !== undefined) {
      served += r.cachedTokens;
      reported += 1;
    }
    if (r.promptTokens !== undefined) {
      prompt += r.promptTokens;
      prompts += 1;
    }
  }
  const base = { expectedTokens: expected, promptTokens: prompts ? prompt : null, reported };
  if (reported) return { ...base, servedTokens: served, source: 'usage' };
  const hits = samples.map((s) => s.prefixCacheHits).filter((v): v is number => typeof v === 'number');
  if (hits.length >= 2 && hits[hits.length - 1]! >= hits[0]!)
    return { ...base, servedTokens: hits[hits.length - 1]! - hits[0]!, source: 'metrics' };
  return { ...base, servedTokens: null, source: 'none' };
}
